import Foundation

/// A stub's requirement on one request header named in the set's `matchHeaders`.
///
/// `Content-Type` compares media types only (a multipart boundary or charset never breaks a match);
/// other headers compare trimmed values exactly.
public struct HeaderConstraint: Sendable, Equatable, Hashable {
    /// Lower-cased header name.
    public let name: String
    /// Normalised expected value.
    public let value: String

    public init(name: String, value: String) {
        self.name = name.asciiLowercased
        self.value = HeaderConstraint.normalize(value: value, forHeader: self.name)
    }

    /// Whether `headers` satisfies the constraint.
    public func isSatisfied(by headers: HTTPHeaders) -> Bool {
        guard let actual = headers[name] else { return false }
        return HeaderConstraint.normalize(value: actual, forHeader: name) == value
    }

    /// The value as compared for the header `name` (lower-cased).
    public static func normalize(value: String, forHeader name: String) -> String {
        if name == "content-type" { return MediaType.essence(of: value) }
        return value.trimmingCharacters(in: .whitespaces)
    }
}
