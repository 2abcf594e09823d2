/// The version of mockd, shown by `--version` and `GET /__mockd/health`.
public enum MockdVersion {
    public static let current = "0.1.0"
    /// The repository on GitHub, `owner/name`: the one place the slug is written (scripts/release reads it here;
    /// `scripts/release/set-repository OWNER/NAME` changes it and every command in the docs that names it).
    public static let repository = "mockd-dev/mockd"
    /// What `mockd --version` says first: which mockd this is (another project ships a binary named `mockd`).
    public static var banner: String {
        "mockd \(current): local mock HTTP server for app UI tests (https://github.com/\(repository))"
    }
}
