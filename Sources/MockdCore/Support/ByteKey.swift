import Foundation  // memcmp

/// A string as a dictionary key compared by its UTF-8 bytes.
///
/// `String`'s own equality and hashing follow Unicode canonical equivalence, under which "é" (U+00E9) and "e" +
/// U+0301 are one key: a table keyed by `String` gives the second string the first one's bytes (another body, header
/// or file name), where a mock set must give back each string as recorded.
struct ByteKey: Hashable, Comparable {
    let value: String

    init(_ value: String) { self.value = value }

    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool { sameBytes(lhs.value, rhs.value) }

    /// Whether `lhs` and `rhs` hold the same UTF-8 bytes (one `memcmp`; `==` on `String` also takes canonically
    /// equivalent spellings as equal).
    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool { sameBytes(lhs[...], rhs) }

    /// `sameBytes(_:_:)` for a part of a string.
    static func sameBytes(_ lhs: Substring, _ rhs: String) -> Bool {
        var lhs = lhs  // `withUTF8` makes a bridged or foreign string contiguous first
        var rhs = rhs
        return lhs.withUTF8 { left in rhs.withUTF8 { right in sameBytes(.init(left), .init(right)) } }
    }

    /// Whether two buffers hold the same bytes (one `memcmp`).
    @inline(__always)
    static func sameBytes(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        lhs.count == rhs.count && (lhs.isEmpty || memcmp(lhs.baseAddress!, rhs.baseAddress!, lhs.count) == 0)
    }

    /// Byte order (UTF-8 order is code point order).
    static func < (lhs: ByteKey, rhs: ByteKey) -> Bool { lhs.value.utf8.lexicographicallyPrecedes(rhs.value.utf8) }

    func hash(into hasher: inout Hasher) {
        var value = value  // `withUTF8` makes a bridged or foreign string contiguous first
        value.withUTF8 { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }
}

/// A list of strings as a dictionary key compared by their UTF-8 bytes, member by member (see `ByteKey`).
struct ByteKeys: Hashable {
    let values: [String]

    init(_ values: [String]) { self.values = values }

    static func == (lhs: ByteKeys, rhs: ByteKeys) -> Bool { sameBytes(lhs.values, rhs.values) }

    /// Whether the lists hold the same strings byte for byte; one buffer shared by both (an interned list) is equal
    /// without a look at its strings.
    static func sameBytes(_ lhs: [String], _ rhs: [String]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        let shared = lhs.withUnsafeBufferPointer { left in
            rhs.withUnsafeBufferPointer { right in left.baseAddress == right.baseAddress }
        }
        return shared || zip(lhs, rhs).allSatisfy { ByteKey.sameBytes($0, $1) }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(values.count)
        for value in values { ByteKey(value).hash(into: &hasher) }
    }
}
