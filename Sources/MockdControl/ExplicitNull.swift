/// An optional answer field that is always sent: `null` when it has no value, rather than left out.
///
/// The control API has always sent some fields as `null` (a journal entry's `stub` when nothing answered, the
/// journal page's `next` on the last page), and readers rely on the key being there; Swift's synthesized `Encodable`
/// leaves a `nil` optional out. Reading accepts the field absent too (an older daemon).
@propertyWrapper
public struct ExplicitNull<Value> {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }
}

extension ExplicitNull: Sendable where Value: Sendable {}
extension ExplicitNull: Equatable where Value: Equatable {}
extension ExplicitNull: Hashable where Value: Hashable {}

extension ExplicitNull: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}

extension ExplicitNull: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension KeyedDecodingContainer {
    /// An `ExplicitNull` field may be absent (as from an older daemon): chosen over the generic `decode` by the
    /// synthesized `init(from:)` of the types that use it.
    public func decode<Value: Decodable>(
        _ type: ExplicitNull<Value>.Type,
        forKey key: Key
    ) throws -> ExplicitNull<Value> {
        ExplicitNull(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}
