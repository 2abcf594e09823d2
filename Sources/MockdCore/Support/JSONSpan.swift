import Foundation

/// A value of a JSON document as written: found by its path, its bytes compacted (whitespace outside strings
/// removed) but keys in their order and numbers spelt as in the file (`550.00` stays `550.00`). For formats whose
/// servers send JSON as written (WireMock's `jsonBody`), where decoding and re-encoding would sort keys and
/// reformat numbers.
enum JSONSpan {
    enum Step: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// The compact text of the value at `path` in the document `bytes`, looked for from `start` (the offset of the
    /// value `path` starts from; `nil`: the document's top); `nil` when the path does not lead to a value or the
    /// document is not well-formed there. Duplicate keys: the last one, as `JSONSerialization` reads it.
    static func compactText(at path: ArraySlice<Step>, in bytes: [UInt8], from start: Int?) -> String? {
        var scanner = Scanner(bytes: bytes)
        if let start { scanner.position = start }
        guard let range = scanner.find(Array(path)) else { return nil }
        return String(decoding: compact(bytes[range]), as: UTF8.self)
    }

    /// The offset of each element of the array at `path` (the first byte of its value), in one pass; `nil` when the
    /// path does not lead to an array. Values found below them then need not walk every element before theirs again.
    static func elementStarts(ofArrayAt path: [Step], in bytes: [UInt8]) -> [Int]? {
        var scanner = Scanner(bytes: bytes)
        guard let range = scanner.find(path), bytes[range.lowerBound] == UInt8(ascii: "[") else { return nil }
        var array = Scanner(bytes: bytes, position: range.lowerBound)
        return array.elementStarts()
    }

    /// `bytes` without whitespace outside strings.
    static func compact(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                output.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                output.append(byte)
            } else if ![0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                output.append(byte)
            }
        }
        return output
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        }

        mutating func find(_ path: [Step]) -> Range<Int>? {
            skipWhitespace()
            guard let step = path.first else {
                let start = position
                guard skipValue() else { return nil }
                return start..<position
            }
            switch step {
            case .key(let wanted):
                guard next() == UInt8(ascii: "{") else { return nil }
                var found: Range<Int>?
                skipWhitespace()
                if peek() == UInt8(ascii: "}") { return nil }
                while true {
                    skipWhitespace()
                    guard let key = string() else { return nil }
                    skipWhitespace()
                    guard next() == UInt8(ascii: ":") else { return nil }
                    skipWhitespace()
                    if key == wanted {
                        var inner = Scanner(bytes: bytes, position: position)
                        found = inner.find(Array(path.dropFirst()))
                    }
                    guard skipValue() else { return nil }
                    skipWhitespace()
                    let separator = next()
                    if separator == UInt8(ascii: "}") { return found }
                    guard separator == UInt8(ascii: ",") else { return nil }
                }
            case .index(let wanted):
                guard next() == UInt8(ascii: "[") else { return nil }
                skipWhitespace()
                if peek() == UInt8(ascii: "]") { return nil }
                var index = 0
                while true {
                    skipWhitespace()
                    if index == wanted { return find(Array(path.dropFirst())) }
                    guard skipValue() else { return nil }
                    skipWhitespace()
                    guard next() == UInt8(ascii: ",") else { return nil }
                    index += 1
                }
            }
        }

        /// With the scanner at an array, the offset of each element's value.
        mutating func elementStarts() -> [Int]? {
            guard next() == UInt8(ascii: "[") else { return nil }
            skipWhitespace()
            if peek() == UInt8(ascii: "]") { return [] }
            var starts: [Int] = []
            while true {
                skipWhitespace()
                starts.append(position)
                guard skipValue() else { return nil }
                skipWhitespace()
                let separator = next()
                if separator == UInt8(ascii: "]") { return starts }
                guard separator == UInt8(ascii: ",") else { return nil }
            }
        }

        init(bytes: [UInt8], position: Int) {
            self.bytes = bytes
            self.position = position
        }

        private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

        private mutating func next() -> UInt8? {
            defer { position += 1 }
            return peek()
        }

        private mutating func skipWhitespace() {
            while let byte = peek(), [0x20, 0x09, 0x0A, 0x0D].contains(byte) { position += 1 }
        }

        /// A string's decoded value, the scanner after its closing quote.
        private mutating func string() -> String? {
            let start = position
            guard skipString() else { return nil }
            let literal = RawByteOrderMarks.escaped(Data(bytes[start..<position]))
            return (try? JSONSerialization.jsonObject(with: literal, options: .fragmentsAllowed)) as? String
        }

        private mutating func skipString() -> Bool {
            guard next() == UInt8(ascii: "\"") else { return false }
            while let byte = next() {
                if byte == UInt8(ascii: "\\") {
                    position += 1
                } else if byte == UInt8(ascii: "\"") {
                    return true
                }
            }
            return false
        }

        /// Skips one value (nesting tracked by depth, strings whole).
        private mutating func skipValue() -> Bool {
            skipWhitespace()
            guard let first = peek() else { return false }
            if first == UInt8(ascii: "\"") { return skipString() }
            if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
                var depth = 0
                while let byte = peek() {
                    if byte == UInt8(ascii: "\"") {
                        guard skipString() else { return false }
                        continue
                    }
                    position += 1
                    if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
                    if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                        depth -= 1
                        if depth == 0 { return true }
                    }
                }
                return false
            }
            let start = position
            while let byte = peek(),
                ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D]
                    .contains(byte)
            {
                position += 1
            }
            return position > start
        }
    }
}
