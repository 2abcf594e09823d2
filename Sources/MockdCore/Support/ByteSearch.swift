import Foundation

/// Fast byte-pattern search (`memchr` for the first byte, then a compare), for scanning every body at load
/// time; Foundation's generic `Data.firstRange(of:)` was the top cost of loading 10,000 stubs.
enum ByteSearch {
    /// The offset (from `data.startIndex`) of the first occurrence of `pattern` at or after `offset`.
    static func firstOffset(of pattern: [UInt8], in data: Data, from offset: Int = 0) -> Int? {
        guard !pattern.isEmpty, data.count - offset >= pattern.count else { return nil }
        return data.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress else { return nil }
            let bytes = base.assumingMemoryBound(to: UInt8.self)
            var position = offset
            let last = raw.count - pattern.count
            while position <= last {
                guard let hit = memchr(bytes + position, Int32(pattern[0]), last - position + 1) else { return nil }
                let index = base.distance(to: UnsafeRawPointer(hit))
                if (1..<pattern.count).allSatisfy({ bytes[index + $0] == pattern[$0] }) { return index }
                position = index + 1
            }
            return nil
        }
    }

    /// The index of the first `byte` in `buffer` at or after `offset` (`memchr`).
    static func firstIndex(of byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from offset: Int) -> Int? {
        guard let base = buffer.baseAddress, offset < buffer.count,
            let hit = memchr(base + offset, Int32(byte), buffer.count - offset)
        else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    static func contains(_ pattern: [UInt8], in data: Data) -> Bool {
        firstOffset(of: pattern, in: data) != nil
    }

    /// Whether `pattern` occurs in `buffer` (`memchr` for its first byte, then a compare).
    static func contains(_ pattern: [UInt8], in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        pattern.withUnsafeBufferPointer { contains($0, in: buffer) }
    }

    /// Whether `pattern` occurs in `buffer` (`memchr` for its first byte, then a compare).
    static func contains(_ pattern: UnsafeBufferPointer<UInt8>, in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = buffer.baseAddress, !pattern.isEmpty, buffer.count >= pattern.count else { return false }
        var position = 0
        let last = buffer.count - pattern.count
        while position <= last {
            guard let hit = memchr(base + position, Int32(pattern[0]), last - position + 1) else { return false }
            let index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if (1..<pattern.count).allSatisfy({ base[index + $0] == pattern[$0] }) { return true }
            position = index + 1
        }
        return false
    }
}

extension String {
    /// `contains(needle)` exactly as Foundation answers it, for an ASCII `needle`, asked of Foundation only when the
    /// needle's bytes occur: an ASCII text matches only where its bytes are, so their absence (the common case) is
    /// a quick no, without Foundation's string search (which cost more than the rest of the check).
    func containsASCII(_ needle: String) -> Bool {
        var text = self
        let present = text.withUTF8 { bytes in
            needle.utf8.withContiguousStorageIfAvailable { ByteSearch.contains($0, in: bytes) } ?? true
        }
        return present && contains(needle)
    }
}

/// Equality of short byte strings (header names and values, request targets) in place: eight bytes at a time, the
/// last word overlapping, no call to `memcmp` (whose call cost more than these comparisons).
public enum ShortBytes {
    /// Whether the `bytes.count` bytes at `start` are `bytes`.
    @inlinable @inline(__always)
    public static func equal(_ start: UnsafeRawPointer, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard let other = bytes.baseAddress else { return count == 0 }
        if count >= 8 {
            var at = 0
            while at + 8 <= count {
                if start.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                    != other.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                {
                    return false
                }
                at += 8
            }
            return at == count
                || start.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == other.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        if count >= 4 {
            return start.loadUnaligned(as: UInt32.self) == other.loadUnaligned(as: UInt32.self)
                && start.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                    == other.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        }
        for index in 0..<count where start.load(fromByteOffset: index, as: UInt8.self) != bytes[index] {
            return false
        }
        return true
    }
}
