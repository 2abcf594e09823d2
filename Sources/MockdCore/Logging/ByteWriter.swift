/// Writes a line's bytes into memory the caller owns (a stack buffer), counting every byte, also those that do not
/// fit: a line is formatted in one pass with plain stores, and `fits` says whether it is all there (else the count is
/// the size to ask for). Appending byte by byte to an `[UInt8]` paid a uniqueness and capacity check per byte, most of
/// the log line's instructions.
struct ByteWriter {
    private let base: UnsafeMutablePointer<UInt8>?
    private let capacity: Int
    /// Bytes written so far, counting those past `capacity`.
    private(set) var count: Int

    /// Writes into `buffer` from `offset` on.
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>, from offset: Int = 0) {
        base = buffer.baseAddress
        capacity = buffer.count
        count = offset
    }

    /// Whether every byte written is in the buffer.
    var fits: Bool { count <= capacity }

    @inline(__always)
    mutating func write(_ byte: UInt8) {
        if count < capacity, let base { base[count] = byte }
        count += 1
    }

    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        if count + bytes.count <= capacity, let base, let start = bytes.baseAddress {
            (base + count).update(from: start, count: bytes.count)
        }
        count += bytes.count
    }

    mutating func write(_ text: String) {
        if let done: Void = text.utf8.withContiguousStorageIfAvailable({ write($0) }) { return done }
        for byte in text.utf8 { write(byte) }
    }

    /// `text` with its control bytes (`isEscapedControl`: below 0x20, and DEL) written as `\xNN`, as errors write
    /// them (`escapingControls`): a request target or stub id written as it came would move the operator's terminal
    /// (ANSI escapes) or start a line of its own. One scan when there is none.
    mutating func writeEscapingControls(_ text: String) {
        if let done: Void = text.utf8.withContiguousStorageIfAvailable({ writeEscapingControls($0) }) { return done }
        writeEscapingControlsByByte(text.utf8)
    }

    /// `writeEscapingControls` for UTF-8 bytes.
    mutating func writeEscapingControls(_ bytes: UnsafeBufferPointer<UInt8>) {
        if !bytes.contains(where: isEscapedControl) { return write(bytes) }
        writeEscapingControlsByByte(bytes)
    }

    private mutating func writeEscapingControlsByByte<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes {
            guard isEscapedControl(byte) else {
                write(byte)
                continue
            }
            write(UInt8(ascii: "\\"))
            write(UInt8(ascii: "x"))
            write(controlEscapeDigits.utf8Start[Int(byte >> 4)])
            write(controlEscapeDigits.utf8Start[Int(byte & 0x0F)])
        }
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        write(bytes.utf8)
    }

    mutating func write(_ text: StaticString) {
        write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Non-negative `value` in decimal, zero-padded to at least `width` digits (a negative value as `0`s).
    mutating func writeDigits(_ value: Int, width: Int) {
        var digits = 1
        var limit = 10
        while digits < 19, value >= limit {
            digits += 1
            limit &*= 10
        }
        let total = max(digits, width)
        guard count + total <= capacity, let base else {
            count += total
            return
        }
        var rest = max(value, 0)
        var position = count + total - 1
        while position >= count {
            base[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            position -= 1
        }
        count += total
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes as `UInt8`s (what they are bound to wherever this project reads text as raw bytes).
    var utf8: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: baseAddress?.assumingMemoryBound(to: UInt8.self), count: count)
    }
}

extension Array where Element == UInt8 {
    /// Appends what `write` writes through a `ByteWriter`: formatted on the stack, then copied in once.
    mutating func appendWritten(_ write: (inout ByteWriter) -> Void) {
        let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { scratch -> Int in
            var writer = ByteWriter(scratch)
            write(&writer)
            if writer.fits { append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<writer.count])) }
            return writer.fits ? 0 : writer.count
        }
        guard written > 0 else { return }
        // Longer than the stack buffer: written again into one of its exact size.
        let tail = [UInt8](unsafeUninitializedCapacity: written) { buffer, initialized in
            var writer = ByteWriter(buffer)
            write(&writer)
            initialized = written
        }
        append(contentsOf: tail)
    }
}
