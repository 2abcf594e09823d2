/// An ordered list of HTTP header fields (RFC 9110 §5).
///
/// Order and repeated names are kept (several `Set-Cookie` fields stay separate); lookups compare
/// names case-insensitively.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    /// One header field as sent or recorded.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field]

    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    public init(_ pairs: [(String, String)]) {
        self.fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// Appends a field, keeping any earlier field with the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field called `name` (case-insensitive).
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// The first value of the field called `name` (case-insensitive), or `nil`.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of the fields called `name`, in order.
    public func values(named name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }
}

extension String {
    /// ASCII case-insensitive comparison, as header names need (RFC 9110 §5.1).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let lhs = self.utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        for (a, b) in zip(lhs, rhs) where a != b {
            if asciiLowercase(a) != asciiLowercase(b) { return false }
        }
        return true
    }

    /// The string with ASCII letters lowercased; other characters unchanged.
    var asciiLowercased: String {
        if !utf8.contains(where: { $0 >= 65 && $0 <= 90 }) { return self }
        return String(decoding: utf8.map(asciiLowercase), as: UTF8.self)
    }
}

@inline(__always)
func asciiLowercase(_ byte: UInt8) -> UInt8 {
    (byte >= 65 && byte <= 90) ? byte + 32 : byte
}
