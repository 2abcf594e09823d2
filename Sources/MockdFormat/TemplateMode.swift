/// How a response's `{{…}}` placeholders are treated: JSON `true`, `false` or `"redacted"`.
public enum TemplateMode: Codable, Sendable, Equatable {
    /// Every placeholder renders (the default).
    case on
    /// Sent literally.
    case off
    /// Only the fixed fake values of redacted secrets render (see `FakeValues`); other `{{…}}` stay literal.
    case redactedOnly

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = flag ? .on : .off
            return
        }
        guard (try? container.decode(String.self)) == "redacted" else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "expected true, false or \"redacted\""
            )
        }
        self = .redactedOnly
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .on: try container.encode(true)
        case .off: try container.encode(false)
        case .redactedOnly: try container.encode("redacted")
        }
    }
}
