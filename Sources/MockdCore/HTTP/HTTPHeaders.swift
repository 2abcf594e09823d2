import Foundation

/// An ordered list of HTTP header fields (RFC 9110 §5).
///
/// Order and repeated names are kept (several `Set-Cookie` fields stay separate); lookups compare
/// names case-insensitively.
///
/// A request's headers arrive packed (`Packer`): all names and values in one byte buffer, looked up in place
/// and made into `Field`s only when listed (the journal, templates): no strings are made per header per request,
/// and no field is copied on a lookup (docs/BENCHMARKS.md#why-the-hot-path-looks-as-it-does).
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

    private enum Storage: @unchecked Sendable {  // PackedBytes is never written after it is made
        case fields([Field])
        /// Per field: name length (4 bytes, little-endian), name, value length (4 bytes), value.
        case packed(PackedBytes)
    }

    /// The bytes of packed headers, in one allocation with their count (an `[UInt8]` paid a generic
    /// storage-type lookup per request) and a signature of the names present.
    private final class PackedBytes: ManagedBuffer<PackedBytes.Header, UInt8> {
        struct Header {
            let count: Int
            /// One bit per name, by `nameBit(_:)`: a lookup of a name whose bit is clear (most lookups: session
            /// headers, cookies, Content-Length on a GET) answers without walking the fields.
            let names: UInt64
        }

        static func make(copying bytes: UnsafeBufferPointer<UInt8>, names: UInt64) -> PackedBytes {
            let buffer = PackedBytes.create(minimumCapacity: bytes.count) { _ in
                Header(count: bytes.count, names: names)
            }
            buffer.withUnsafeMutablePointerToElements { elements in
                if let base = bytes.baseAddress { elements.update(from: base, count: bytes.count) }
            }
            // `create` returns the ManagedBuffer static type; the instance is a PackedBytes.
            return unsafeDowncast(buffer, to: PackedBytes.self)
        }

        func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            withUnsafeMutablePointers { header, elements in
                body(UnsafeBufferPointer(start: elements, count: header.pointee.count))
            }
        }

        /// The names signature (see `Header.names`).
        var names: UInt64 { withUnsafeMutablePointerToHeader { $0.pointee.names } }

        func mayContain(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
            // Through the pointer: the `header` property pays a dynamic exclusivity check.
            withUnsafeMutablePointerToHeader { $0.pointee.names } & nameBit(name) != 0
        }
    }

    /// A packed length: 4 bytes, little-endian, at `offset`.
    @inline(__always)
    private static func length(in buffer: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        Int(buffer[offset]) | Int(buffer[offset + 1]) << 8 | Int(buffer[offset + 2]) << 16 | Int(buffer[offset + 3])
            << 24
    }

    /// A name's bit in `PackedBytes.Header.names`: from its length and first and last bytes, case-insensitive.
    @inline(__always)
    fileprivate static func nameBit(_ name: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard let first = name.first, let last = name.last else { return 1 }
        let mixed =
            (UInt64(asciiLowercase(first)) &* 31 &+ UInt64(asciiLowercase(last))) &* 7
            &+ UInt64(truncatingIfNeeded: name.count)
        return 1 << (mixed & 63)
    }

    private var storage: Storage

    public init(_ fields: [Field] = []) {
        storage = .fields(fields)
    }

    public init(_ pairs: [(String, String)]) {
        storage = .fields(pairs.map { Field(name: $0.0, value: $0.1) })
    }

    /// Packed headers written by `fill` through a `Packer` (the server bridge, from libmicrohttpd's names and
    /// values): packed on the stack, then copied once into their own allocation.
    ///
    /// When the fields come out byte for byte those of `previous` (packed), the result shares `previous`'s bytes
    /// instead of copying them into an allocation of its own: a keep-alive client repeating its headers (most do) then
    /// costs one comparison per field as it arrives, not a copy, an allocation and a free (`sharesBytes(with:)` tells
    /// the caller). The bytes are never written after they are made, so sharing them is the same value.
    public init(packing fill: (inout Packer) -> Void, reusing previous: HTTPHeaders = HTTPHeaders()) {
        guard case .packed(let shared) = previous.storage else {
            storage = HTTPHeaders.pack(fill, repeating: nil)
            return
        }
        storage = shared.withBytes { HTTPHeaders.pack(fill, repeating: (shared, $0)) }
    }

    private static func pack(
        _ fill: (inout Packer) -> Void,
        repeating previous: (bytes: PackedBytes, buffer: UnsafeBufferPointer<UInt8>)?
    ) -> Storage {
        // 1,024 bytes: larger temporary allocations go to the heap (swift_stdlib_isStackAllocationSafe).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { scratch in
            var packer = Packer(scratch: scratch, previous: previous?.buffer)
            fill(&packer)
            if let previous, packer.repeatsPrevious { return .packed(previous.bytes) }
            packer.finish()
            return packer.withBytes { .packed(PackedBytes.make(copying: $0, names: packer.names)) }
        }
    }

    /// The packed bytes' object, without a reference count (for `Prefetch`); `nil` for fields made one by one.
    var packedAddress: UnsafeRawPointer? {
        guard case .packed(let bytes) = storage else { return nil }
        return UnsafeRawPointer(Unmanaged.passUnretained(bytes).toOpaque())
    }

    /// Whether these headers share `other`'s packed bytes (made by `init(packing:reusing:)` from a repeat of them).
    public func sharesBytes(with other: HTTPHeaders) -> Bool {
        guard case .packed(let mine) = storage, case .packed(let theirs) = other.storage else { return false }
        return mine === theirs
    }

    /// Calls `body` with the name and value bytes of each field, in order (packed headers without making strings).
    public func forEachField(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void) {
        switch storage {
        case .fields(let fields):
            for field in fields {
                var name = field.name
                var value = field.value
                name.withUTF8 { name in value.withUTF8 { body(name, $0) } }
            }
        case .packed(let bytes):
            HTTPHeaders.walk(bytes) { name, value in
                body(name, value)
                return true
            }
        }
    }

    /// Whether two buffers hold the same bytes (`ByteKey.sameBytes`).
    @inline(__always)
    private static func sameBytes(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        ByteKey.sameBytes(UnsafeRawBufferPointer(lhs), UnsafeRawBufferPointer(rhs))
    }

    /// Writes packed fields into a scratch buffer, moving to a growing heap array if they outgrow it. Valid only
    /// inside the `init(packing:)` closure it is handed to (the scratch buffer lives on that call's stack).
    ///
    /// Given the previous request's packed bytes, it first only compares each field with the one at the same place
    /// there (`repeatsPrevious`); at the first difference it copies the fields that matched from there and packs on.
    public struct Packer {
        private let scratch: UnsafeMutableBufferPointer<UInt8>
        @usableFromInline var offset = 0
        /// The fields once they outgrow `scratch` (`spilled`); a plain array and flag, since comparing an
        /// optional array with nil cost two retains per field.
        private var spill: [UInt8] = []
        private var spilled = false
        fileprivate private(set) var names: UInt64 = 0
        /// The packed bytes the fields are compared with while they repeat them (`offset` is then the position there).
        @usableFromInline let previous: UnsafeBufferPointer<UInt8>
        @usableFromInline var repeating: Bool

        fileprivate init(scratch: UnsafeMutableBufferPointer<UInt8>, previous: UnsafeBufferPointer<UInt8>?) {
            self.scratch = scratch
            self.previous = previous ?? UnsafeBufferPointer(start: nil, count: 0)
            self.repeating = previous != nil
        }

        /// Whether every field so far, and no more, is the previous request's, byte for byte.
        fileprivate var repeatsPrevious: Bool { repeating && offset == previous.count }

        /// Appends one field. Inlined into the caller's field callback: a field that repeats the previous request's
        /// is only compared, without a call (~20 instructions a field).
        @inlinable @inline(__always)
        public mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
            if repeating, let base = previous.baseAddress {
                let size = 8 &+ name.count &+ value.count
                if offset &+ size <= previous.count {
                    let at = UnsafeRawPointer(base + offset)
                    if at.loadUnaligned(as: UInt32.self) == UInt32(truncatingIfNeeded: name.count).littleEndian,
                        ShortBytes.equal(at + 4, name),
                        (at + 4 + name.count).loadUnaligned(as: UInt32.self)
                            == UInt32(truncatingIfNeeded: value.count).littleEndian,
                        ShortBytes.equal(at + 8 + name.count, value)
                    {
                        offset &+= size
                        return
                    }
                }
            }
            appendDiffering(name: name, value: value)
        }

        /// Appends a field that does not repeat the previous request's (copying those that did first).
        @usableFromInline
        mutating func appendDiffering(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
            let size = 8 &+ name.count &+ value.count
            if repeating { stopRepeating() }
            // Not while the fields repeat the previous request's: its names signature is theirs.
            names |= HTTPHeaders.nameBit(name.bindMemory(to: UInt8.self))
            if !spilled, offset + size <= scratch.count, let base = scratch.baseAddress {
                // Each length as one 4-byte store, each string as one copy: byte by byte this was ~150 instructions a
                // field, on every field of every request.
                let at = UnsafeMutableRawPointer(base + offset)
                at.storeBytes(of: UInt32(truncatingIfNeeded: name.count).littleEndian, as: UInt32.self)
                if let start = name.baseAddress { (at + 4).copyMemory(from: start, byteCount: name.count) }
                let valueAt = at + 4 + name.count
                valueAt.storeBytes(of: UInt32(truncatingIfNeeded: value.count).littleEndian, as: UInt32.self)
                if let start = value.baseAddress { (valueAt + 4).copyMemory(from: start, byteCount: value.count) }
                offset += size
                return
            }
            if !spilled {
                spill = Array(UnsafeBufferPointer(rebasing: scratch[..<offset]))
                spilled = true
            }
            for index in 0..<4 { spill.append(UInt8(truncatingIfNeeded: name.count >> (8 * index))) }
            spill.append(contentsOf: name.bindMemory(to: UInt8.self))
            for index in 0..<4 { spill.append(UInt8(truncatingIfNeeded: value.count >> (8 * index))) }
            spill.append(contentsOf: value.bindMemory(to: UInt8.self))
        }

        /// Ends a packing whose fields repeated only the start of the previous request's (fewer of them): those are
        /// copied from there.
        fileprivate mutating func finish() {
            if repeating { stopRepeating() }
        }

        /// The fields differ from the previous request's from here on: the ones that matched are copied from there.
        private mutating func stopRepeating() {
            repeating = false
            let matched = UnsafeBufferPointer(rebasing: previous[..<offset])
            var at = 0
            while at < offset {
                let nameCount = HTTPHeaders.length(in: matched, at: at)
                names |= HTTPHeaders.nameBit(UnsafeBufferPointer(rebasing: matched[(at + 4)..<(at + 4 + nameCount)]))
                at += 8 + nameCount + HTTPHeaders.length(in: matched, at: at + 4 + nameCount)
            }
            if offset <= scratch.count, let base = scratch.baseAddress, let from = matched.baseAddress {
                UnsafeMutableRawPointer(base).copyMemory(from: from, byteCount: offset)
            } else if offset > 0 {
                spill = Array(matched)
                spilled = true
            }
        }

        fileprivate func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            if spilled { return spill.withUnsafeBufferPointer(body) }
            return body(UnsafeBufferPointer(rebasing: scratch[..<offset]))
        }
    }

    /// Every field, in order.
    public var fields: [Field] {
        switch storage {
        case .fields(let fields):
            return fields
        case .packed(let bytes):
            var fields: [Field] = []
            HTTPHeaders.walk(bytes) { name, value in
                fields.append(
                    Field(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
                )
                return true
            }
            return fields
        }
    }

    public var count: Int {
        switch storage {
        case .fields(let fields):
            return fields.count
        case .packed(let bytes):
            var count = 0
            HTTPHeaders.walk(bytes) { _, _ in
                count += 1
                return true
            }
            return count
        }
    }

    public var isEmpty: Bool { count == 0 }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields == rhs.fields
    }

    /// Appends a field, keeping any earlier field with the same name.
    public mutating func add(name: String, value: String) {
        var fields = self.fields
        storage = .fields([])  // drops the other reference, so the append does not copy
        fields.append(Field(name: name, value: value))
        storage = .fields(fields)
    }

    /// Removes every field called `name` (case-insensitive).
    public mutating func remove(name: String) {
        var fields = self.fields
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
        storage = .fields(fields)
    }

    /// The first value of the field called `name` (case-insensitive), or `nil`.
    public subscript(name: String) -> String? {
        switch storage {
        case .fields(let fields):
            // Indexed, not `first(where:)`: that copied every field it passed (a retain and release each).
            for index in fields.indices where fields[index].name.caseInsensitiveEquals(name) {
                return fields[index].value
            }
            return nil
        case .packed(let bytes):
            var found: String?
            HTTPHeaders.walk(bytes, named: name) { value in
                found = String(decoding: value, as: UTF8.self)
                return false
            }
            return found
        }
    }

    /// Whether a field called `name` (case-insensitive) is present. For packed headers the names signature
    /// answers most of these (a GET has no `Content-Length`) without walking or making a string.
    public func contains(name: String) -> Bool {
        switch storage {
        case .fields(let fields):
            return fields.indices.contains { fields[$0].name.caseInsensitiveEquals(name) }
        case .packed(let bytes):
            var found = false
            HTTPHeaders.walk(bytes, named: name) { _ in
                found = true
                return false
            }
            return found
        }
    }

    /// Header names as the names signature of packed headers sees them: one bit each (see `mayContain(anyOf:)`).
    public struct NameSignature: Sendable {
        let bits: UInt64

        public init(_ names: StaticString...) {
            var bits: UInt64 = 0
            for name in names { name.withUTF8Buffer { bits |= HTTPHeaders.nameBit($0) } }
            self.bits = bits
        }
    }

    /// Whether any of `names` may be present: `false` means none is (for packed headers one test of the names
    /// signature, no walk); `true` asks for `contains` to tell.
    @inline(__always)
    public func mayContain(anyOf names: NameSignature) -> Bool {
        switch storage {
        case .fields: return true
        case .packed(let bytes): return bytes.names & names.bits != 0
        }
    }

    /// `contains(name:)` for a name written in the source (`"range"`), without making a string: for packed
    /// headers, a name that is absent (the common case on the hot path) costs one test of the names signature.
    @inline(__always)
    public func contains(_ name: StaticString) -> Bool {
        switch storage {
        case .fields: return contains(name: name.description)
        case .packed(let bytes):
            var found = false
            name.withUTF8Buffer { wanted in
                HTTPHeaders.walk(bytes, named: wanted) { _ in
                    found = true
                    return false
                }
            }
            return found
        }
    }

    /// The values of the fields called `name` joined with `,` (RFC 9110 §5.3), or `nil` when there is none: what
    /// `values(named:).joined(separator: ",")` gives, without the array (asked for `Accept` on every request).
    public func joinedValues(named name: String) -> String? {
        switch storage {
        case .fields(let fields):
            var joined: String?
            for index in fields.indices where fields[index].name.caseInsensitiveEquals(name) {
                if joined == nil { joined = fields[index].value } else { joined! += "," + fields[index].value }
            }
            return joined
        case .packed(let bytes):
            var joined: String?
            HTTPHeaders.walk(bytes, named: name) { value in
                let text = String(decoding: value, as: UTF8.self)
                if joined == nil { joined = text } else { joined! += "," + text }
                return true
            }
            return joined
        }
    }

    /// Whether exactly one field is called `name` (case-insensitive) and its value is `expected`, byte for byte.
    /// Makes no string: a stub's recorded `Accept` is asked about on every request it is routed to.
    func hasOnlyValue(named name: String, equalTo expected: String) -> Bool {
        switch storage {
        case .fields(let fields):
            var matched = false
            for index in fields.indices where fields[index].name.caseInsensitiveEquals(name) {
                guard !matched, fields[index].value == expected else { return false }
                matched = true
            }
            return matched
        case .packed(let bytes):
            var expected = expected
            return expected.withUTF8 { wanted in
                var fields = 0
                var equal = false
                HTTPHeaders.walk(bytes, named: name) { value in
                    fields += 1
                    equal = value.elementsEqual(wanted)
                    return fields == 1
                }
                return fields == 1 && equal
            }
        }
    }

    /// Whether `other` holds the very same fields, byte for byte and in order (`AnswerCache`): for packed headers one
    /// comparison of their buffers. Packed and listed headers are never the same here (a cache miss, not a wrong answer).
    func hasSameFields(as other: HTTPHeaders) -> Bool {
        switch (storage, other.storage) {
        case (.packed(let mine), .packed(let theirs)):
            if mine === theirs { return true }
            return mine.withBytes { mine in theirs.withBytes { HTTPHeaders.sameBytes(mine, $0) } }
        case (.fields(let mine), .fields(let theirs)):
            return mine == theirs
        default:
            return false
        }
    }

    /// Every value of the fields called `name`, in order.
    public func values(named name: String) -> [String] {
        switch storage {
        case .fields(let fields):
            var values: [String] = []
            for index in fields.indices where fields[index].name.caseInsensitiveEquals(name) {
                values.append(fields[index].value)
            }
            return values
        case .packed(let bytes):
            var values: [String] = []
            HTTPHeaders.walk(bytes, named: name) { value in
                values.append(String(decoding: value, as: UTF8.self))
                return true
            }
            return values
        }
    }

    /// Calls `body` with each packed field's name and value bytes until it returns false.
    private static func walk(
        _ bytes: PackedBytes,
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool
    ) {
        bytes.withBytes { buffer in
            var offset = 0
            while offset + 8 <= buffer.count {
                let nameCount = HTTPHeaders.length(in: buffer, at: offset)
                let name = UnsafeBufferPointer(rebasing: buffer[(offset + 4)..<(offset + 4 + nameCount)])
                offset += 4 + nameCount
                let valueCount = HTTPHeaders.length(in: buffer, at: offset)
                let value = UnsafeBufferPointer(rebasing: buffer[(offset + 4)..<(offset + 4 + valueCount)])
                offset += 4 + valueCount
                if !body(name, value) { return }
            }
        }
    }

    /// Calls `body` with the value bytes of each packed field called `name` (ASCII case-insensitive) until it
    /// returns false; the name's bytes are taken once, and other fields are skipped by their length.
    private static func walk(_ bytes: PackedBytes, named name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        if name.utf8.withContiguousStorageIfAvailable({ walk(bytes, named: $0, body) }) == nil {
            Array(name.utf8).withUnsafeBufferPointer { walk(bytes, named: $0, body) }
        }
    }

    @inline(__always)
    private static func walk(
        _ bytes: PackedBytes,
        named wanted: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>) -> Bool
    ) {
        do {
            guard bytes.mayContain(wanted) else { return }
            bytes.withBytes { buffer in
                guard let base = buffer.baseAddress, let wantedBase = wanted.baseAddress else { return }
                var offset = 0
                while offset + 8 <= buffer.count {
                    let nameCount = HTTPHeaders.length(in: buffer, at: offset)
                    let nameStart = base + offset + 4
                    let lengthAt = offset + 4 + nameCount
                    let valueCount = HTTPHeaders.length(in: buffer, at: lengthAt)
                    offset = lengthAt + 4 + valueCount
                    guard nameCount == wanted.count else { continue }
                    var index = 0
                    while index < nameCount, asciiLowercase(nameStart[index]) == asciiLowercase(wantedBase[index]) {
                        index += 1
                    }
                    if index == nameCount, !body(UnsafeBufferPointer(start: base + lengthAt + 4, count: valueCount)) {
                        return
                    }
                }
            }
        }
    }
}

extension String {
    /// ASCII case-insensitive comparison, as header names need (RFC 9110 §5.1).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let lhs = self.utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        // Compared as buffers when both are contiguous (always for native strings), never as a zip of two UTF-8
        // views: every header lookup runs this.
        if let equal = lhs.withContiguousStorageIfAvailable({ left in
            rhs.withContiguousStorageIfAvailable { right in
                for index in 0..<left.count where left[index] != right[index] {
                    if asciiLowercase(left[index]) != asciiLowercase(right[index]) { return false }
                }
                return true
            }
        }), let equal {
            return equal
        }
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
