/// The version of mockd, shown by `--version` and `GET /__mockd/health`.
public enum MockdVersion {
    public static let current = "0.1.0"
}
