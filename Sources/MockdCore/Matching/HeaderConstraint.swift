import Foundation

/// A stub's requirement on one request header named in the set's `matchHeaders`.
///
/// `Content-Type` compares media types only (a multipart boundary or charset never breaks a match); `Accept`
/// with an `offeredType` is content negotiation (`AcceptNegotiation`); other headers compare trimmed values
/// exactly.
public struct HeaderConstraint: Sendable, Equatable, Hashable {
    /// Lower-cased header name.
    public let name: String
    /// Normalised expected value.
    public let value: String
    /// For `accept`: the media type the stub answers with; the request must accept it (RFC 9110 §12.5.1) rather
    /// than send the recorded value. `nil`: exact comparison.
    public let offeredType: String?

    public init(name: String, value: String, offeredType: String? = nil) {
        self.name = name.asciiLowercased
        self.value = HeaderConstraint.normalize(value: value, forHeader: self.name)
        self.offeredType = self.name == "accept" ? offeredType : nil
    }

    /// Whether `headers` satisfies the constraint.
    public func isSatisfied(by headers: HTTPHeaders) -> Bool {
        if let offeredType {
            // The recorded value itself, as one field (the common case: the app that was recorded asks again): true
            // below too, found without making the joined string or parsing it.
            if headers.hasOnlyValue(named: "accept", equalTo: value) { return true }
            let accept = headers.joinedValues(named: "accept")
            // The recorded `Accept` is this stub's own request, whatever type the server answered it with.
            return AcceptNegotiation.accepts(accept, mediaType: offeredType) || accept?.trimmingWhitespace == value
        }
        guard let actual = headers[name] else { return false }
        return HeaderConstraint.normalize(value: actual, forHeader: name) == value
    }

    /// How well an `Accept` constraint that `headers` satisfies fits them, for choosing between recorded variants:
    /// 2 for the recorded `Accept` itself, else the `q` the request gives the offered type (RFC 9110 §12.5.1).
    func preference(in headers: HTTPHeaders) -> Double {
        let accept = headers.joinedValues(named: "accept")
        guard let offeredType, accept?.trimmingWhitespace != value else { return 2 }
        return AcceptNegotiation.quality(accept, mediaType: offeredType)
    }

    /// The value as compared for the header `name` (lower-cased).
    public static func normalize(value: String, forHeader name: String) -> String {
        if name == "content-type" { return MediaType.essence(of: value) }
        return value.trimmingWhitespace
    }
}
