internal import Foundation

/// The `format` values checked when formats are asserted (2020-12 Validation §7.3; OpenAPI 3.0 §4.7.24's
/// `date`, `date-time`, `uuid`, …): a description of what is wrong, `nil` when the text conforms or the format is
/// not one of these (unknown formats are annotations).
enum FormatCheck {
    private static let patterns: [String: String] = [
        // RFC 3339 §5.6 full-date / date-time / full-time.
        "date": #"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$"#,
        "date-time":
            #"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$"#,
        "time": #"^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$"#,
        // RFC 5321 §4.1.2 Mailbox, simplified: a local part, one @, a dotted domain.
        "email": #"^[^@\s]+@[^@\s]+\.[^@\s]+$"#,
        // RFC 4122 §3.
        "uuid": #"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"#,
        // RFC 2673 §3.2 dotted quad.
        "ipv4": #"^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$"#,
        // RFC 3986 §3.1: a scheme and a colon.
        "uri": #"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$"#,
    ]

    static func problem(with text: String, format: String) -> String? {
        if format == "ipv6" {
            var address = in6_addr()
            return inet_pton(AF_INET6, text, &address) == 1 ? nil : "\"\(text)\" is not an IPv6 address"
        }
        guard let pattern = patterns[format] else { return nil }
        return RegexCache.shared.matches(pattern, text) ? nil : "\"\(text)\" is not a valid \(format)"
    }
}
