import Foundation
import MockdFormat

/// Decodes the common shape of `index.json` in one pass over the bytes, for start-up speed.
///
/// Why it exists: `JSONDecoder` plus the unknown-field check (a second parse with `JSONSerialization`) cost
/// ~130 µs per stub in the start-up profile, most of a 10,000-stub cold start. This reads the same fields
/// into the same `MockSetFile`, and gives up (`nil`) on anything it does not handle exactly as the slow path
/// does: a field it does not know, a duplicate key, an unexpected type, a number that is not a plain integer
/// where one is expected, a string that is not valid UTF-8, a newer version… The loader then decodes the file
/// the slow way, which reports the problem with its usual message. So a file this accepts is one the slow
/// path accepts with the same result, and every error still comes from the slow path.
///
/// Rarely used sub-values (`normalize`, `json` bodies, `websocket`, `events`) are cut out as raw JSON and
/// decoded with `JSONDecoder` after the same unknown-field check on their own shape.
enum MockSetFastDecoder {
    /// A `stubs` array at least this long (256 KiB, about 1,500 stubs) is decoded on several threads.
    static let parallelBytes = 256 * 1024

    /// The file's bytes, handed to the threads decoding slices of it; only read while `decode` runs.
    private struct SharedBytes: @unchecked Sendable {
        let bytes: UnsafeBufferPointer<UInt8>
        let data: Data
    }
    /// The elements of the JSON array at the start of `data`, as `Parser.elementBounds()` cuts them (for tests:
    /// the decoder falls back to a single pass when the cut fails, which would hide a wrong cut).
    static func arrayElementBounds(_ data: Data) -> (elements: [Range<Int>], end: Int)? {
        data.withUnsafeBytes { raw -> (elements: [Range<Int>], end: Int)? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress, !raw.isEmpty else { return nil }
            return Parser(bytes: UnsafeBufferPointer(start: base, count: raw.count), data: data).elementBounds()
        }
    }

    /// The decoded file, or `nil` when the slow path must decide.
    static func decode(_ data: Data) -> MockSetFile? {
        data.withUnsafeBytes { raw -> MockSetFile? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress, !raw.isEmpty else { return nil }
            var parser = Parser(bytes: UnsafeBufferPointer(start: base, count: raw.count), data: data)
            guard let file = parser.root() else { return nil }
            parser.skipWhitespace()
            return parser.position == parser.bytes.count ? file : nil
        }
    }

    /// An object key as its UTF-8 bytes, matched against string literals in `switch`.
    private struct Key {
        let bytes: UnsafeBufferPointer<UInt8>

        static func ~= (pattern: StaticString, key: Key) -> Bool {
            pattern.utf8CodeUnitCount == key.bytes.count
                && memcmp(pattern.utf8Start, key.bytes.baseAddress!, key.bytes.count) == 0
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        /// The whole file, for cutting out sub-values decoded with `JSONDecoder`.
        let data: Data
        var position = 0
        /// The last request and response header lists decoded, with where their text was: the next stub's list is
        /// most often the same text, and is then the same array (no strings made; the builder's comparison of
        /// consecutive lists becomes one identity check).
        var lastRequestHeaders: RepeatedValue?
        var lastResponseHeaders: RepeatedValue?

        struct RepeatedValue {
            let text: Range<Int>
            let value: [String]
        }

        init(bytes: UnsafeBufferPointer<UInt8>, data: Data) {
            self.bytes = bytes
            self.data = data
        }

        // MARK: the index

        mutating func root() -> MockSetFile? {
            var file = MockSetFile(stubs: [])
            var version: Int?
            var stubs: [MockSetFile.StubEntry]?
            let ok = object { parser, key in
                switch key {
                case "$schema": return parser.skipValue()
                case "version": return parser.optional(&version) { $0.integer() }
                case "matchHeaders": return parser.optional(&file.matchHeaders) { $0.stringArray() }
                case "acceptMatching": return parser.optional(&file.acceptMatching) { $0.string() }
                case "normalize":
                    return parser.optional(&file.normalize) {
                        $0.decoded(RequestNormalization.self, shape: KnownFields.normalize)
                    }
                case "cors": return parser.optional(&file.cors) { $0.bool() }
                case "conditionalRequests": return parser.optional(&file.conditionalRequests) { $0.bool() }
                case "origins": return parser.optional(&file.origins) { $0.stringArray() }
                case "rewriteURLs": return parser.optional(&file.rewriteURLs) { $0.bool() }
                case "rebaseDates": return parser.optional(&file.rebaseDates) { $0.bool() }
                case "stubs": return parser.optional(&stubs) { $0.stubArray() }
                default: return false
                }
            }
            guard ok else { return nil }
            file.version = version ?? 1
            // A newer version is an error the slow path words.
            guard file.version <= MockSetFile.currentVersion else { return nil }
            file.stubs = stubs ?? []
            return file
        }

        /// The `stubs` array; a large one is cut at its top-level commas and its slices decoded on several threads
        /// (decoding was half the time from start to the first response with 10,000 stubs). Each slice must decode
        /// to exactly its end, so the result is the one a single pass gives, or `nil` when a single pass gives up.
        mutating func stubArray() -> [MockSetFile.StubEntry]? {
            skipWhitespace()
            guard ParallelSlices.sliceCount > 1, bytes.count - position >= MockSetFastDecoder.parallelBytes,
                let (elements, end) = elementBounds(), elements.count >= ParallelSlices.sliceCount * 64
            else { return array { $0.stub() } }
            let shared = SharedBytes(bytes: bytes, data: data)
            let slices = ParallelSlices.run(over: elements.count) { range -> [MockSetFile.StubEntry]? in
                var parser = Parser(bytes: shared.bytes, data: shared.data)
                var stubs: [MockSetFile.StubEntry] = []
                stubs.reserveCapacity(range.count)
                for element in elements[range] {
                    parser.position = element.lowerBound
                    guard let stub = parser.stub() else { return nil }
                    parser.skipWhitespace()
                    guard parser.position == element.upperBound else { return nil }
                    stubs.append(stub)
                }
                return stubs
            }
            var stubs: [MockSetFile.StubEntry] = []
            stubs.reserveCapacity(elements.count)
            for slice in slices {
                guard let slice else { return nil }
                stubs.append(contentsOf: slice)
            }
            position = end
            return stubs
        }

        /// The array starting here, cut into its elements by a scan that only tracks strings and nesting: each
        /// element's range runs up to its comma or the closing bracket; `end` is just past that bracket. `nil`
        /// when the scan finds no end or an empty array; the elements are checked when decoded.
        func elementBounds() -> (elements: [Range<Int>], end: Int)? {
            var index = position
            guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
            index += 1
            var elements: [Range<Int>] = []
            var start = index
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    // To the closing quote: the next quote after an even number of backslashes, found with `memchr`
                    // (a byte-by-byte walk through the strings was 15% of the start-up's main thread).
                    var from = index + 1
                    while true {
                        guard let quote = ByteSearch.firstIndex(of: UInt8(ascii: "\""), in: bytes, from: from) else {
                            return nil
                        }
                        var backslashes = 0
                        while bytes[quote - 1 - backslashes] == UInt8(ascii: "\\") { backslashes += 1 }
                        if backslashes % 2 == 0 {
                            index = quote
                            break
                        }
                        from = quote + 1
                    }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"):
                    depth -= 1
                    if depth < 0 { return nil }
                case UInt8(ascii: "]"):
                    if depth == 0 {
                        elements.append(start..<index)
                        return (elements, index + 1)
                    }
                    depth -= 1
                case UInt8(ascii: ","):
                    if depth == 0 {
                        elements.append(start..<index)
                        start = index + 1
                    }
                default:
                    break
                }
                index += 1
            }
            return nil
        }

        mutating func stub() -> MockSetFile.StubEntry? {
            var id: String?
            var request: MockSetFile.RequestEntry?
            var responses: [MockSetFile.ResponseEntry]?
            var afterLast: ExhaustionPolicy?
            let ok = object { parser, key in
                switch key {
                case "id": return parser.optional(&id) { $0.string() }
                case "request": return parser.optional(&request) { $0.request() }
                case "responses": return parser.optional(&responses) { $0.array { $0.response() } }
                case "afterLast":
                    return parser.optional(&afterLast) { $0.string().flatMap(ExhaustionPolicy.init(rawValue:)) }
                default: return false
                }
            }
            guard ok, let request, let responses else { return nil }
            return MockSetFile.StubEntry(id: id, request: request, responses: responses, afterLast: afterLast)
        }

        mutating func request() -> MockSetFile.RequestEntry? {
            var host: String?
            var method: String?
            var path: String?
            var query: String?
            var headers: [String]?
            var body: MockSetFile.BodyEntry?
            var recordedBody: MockSetFile.BodyEntry?
            var graphql: GraphQLEntry?
            let ok = object { parser, key in
                switch key {
                case "host": return parser.optional(&host) { $0.string() }
                case "method": return parser.optional(&method) { $0.string() }
                case "path": return parser.optional(&path) { $0.string() }
                case "query": return parser.optional(&query) { $0.string() }
                case "headers":
                    return parser.optional(&headers) { $0.stringArray(repeating: \.lastRequestHeaders) }
                case "body": return parser.optional(&body) { $0.requestBody() }
                case "recordedBody": return parser.optional(&recordedBody) { $0.requestBody() }
                case "graphql":
                    return parser.optional(&graphql) { $0.decoded(GraphQLEntry.self, shape: KnownFields.graphqlKey) }
                default: return false
                }
            }
            guard ok, let method, let path else { return nil }
            return MockSetFile.RequestEntry(
                method: method,
                path: path,
                query: query,
                headers: headers,
                body: body,
                host: host,
                recordedBody: recordedBody,
                graphql: graphql
            )
        }

        mutating func requestBody() -> MockSetFile.BodyEntry? {
            var body = MockSetFile.BodyEntry()
            let ok = object { parser, key in
                switch key {
                case "file": return parser.optional(&body.file) { $0.string() }
                case "text": return parser.optional(&body.text) { $0.string() }
                case "json": return parser.optional(&body.json) { $0.decoded(JSONValue.self, shape: .any) }
                case "contentType": return parser.optional(&body.contentType) { $0.string() }
                default: return false
                }
            }
            return ok ? body : nil
        }

        mutating func response() -> MockSetFile.ResponseEntry? {
            var step = MockSetFile.ResponseEntry()
            let ok = object { parser, key in
                switch key {
                case "status": return parser.optional(&step.status) { $0.integer() }
                case "headers":
                    return parser.optional(&step.headers) { $0.stringArray(repeating: \.lastResponseHeaders) }
                case "bodyFile": return parser.optional(&step.bodyFile) { $0.string() }
                case "body": return parser.optional(&step.body) { $0.string() }
                case "json": return parser.optional(&step.json) { $0.decoded(JSONValue.self, shape: .any) }
                case "recordedTimeMs": return parser.optional(&step.recordedTimeMs) { $0.double() }
                case "templated": return parser.optional(&step.templated) { $0.templateMode() }
                case "websocket":
                    return parser.optional(&step.websocket) {
                        $0.decoded(WebSocketScript.self, shape: KnownFields.webSocket)
                    }
                case "events":
                    return parser.optional(&step.events) {
                        $0.decoded(EventStream.self, shape: KnownFields.eventStream)
                    }
                case "fault": return parser.optional(&step.fault) { $0.string().flatMap(Fault.init(rawValue:)) }
                case "miss": return parser.optional(&step.miss) { $0.string() }
                case "conditionalOnly": return parser.optional(&step.conditionalOnly) { $0.bool() }
                case "validators": return parser.optional(&step.validators) { $0.stringArray() }
                case "rangeOnly": return parser.optional(&step.rangeOnly) { $0.bool() }
                case "cachedCopy": return parser.optional(&step.cachedCopy) { $0.string() }
                case "emit":
                    return parser.optional(&step.emit) { $0.decoded([EmitEntry].self, shape: .array(KnownFields.emit)) }
                case "dates": return parser.optional(&step.dates) { $0.dates() }
                default: return false
                }
            }
            return ok ? step : nil
        }

        /// A response's `dates`, read here rather than by `JSONDecoder`: `import-har` writes one on nearly every JSON
        /// answer, and decoding each slice on its own cost about half of a 10,000-stub start.
        mutating func dates() -> MockSetFile.DatesEntry? {
            var recordedAt: String?
            var body: [String]?
            var headers: [String]?
            let ok = object { parser, key in
                switch key {
                case "recordedAt": return parser.optional(&recordedAt) { $0.string() }
                case "body": return parser.optional(&body) { $0.stringArray() }
                case "headers": return parser.optional(&headers) { $0.stringArray() }
                default: return false
                }
            }
            guard ok, let recordedAt else { return nil }
            return MockSetFile.DatesEntry(recordedAt: recordedAt, body: body, headers: headers)
        }

        mutating func templateMode() -> TemplateMode? {
            if let flag = bool() { return flag ? .on : .off }
            return string() == "redacted" ? .redactedOnly : nil
        }

        // MARK: JSON

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        /// Reads `null` (leaving `value` nil, as `decodeIfPresent` does) or a value with `read`; a key seen
        /// twice gives up (how `JSONDecoder` treats duplicates is not ours to guess).
        mutating func optional<T>(_ value: inout T?, _ read: (inout Parser) -> T?) -> Bool {
            guard value == nil else { return false }
            skipWhitespace()
            if literal("null") { return true }
            guard let read = read(&self) else { return false }
            value = read
            return true
        }

        /// An object, calling `field` after each key (positioned before its value); `field` returns false to give up.
        /// A key repeated with `null` values is not detected, which is harmless: both paths read it as absent.
        /// Keys are compared as bytes (`Key`), not made into strings; a key with escapes gives up.
        mutating func object(_ field: (inout Parser, Key) -> Bool) -> Bool {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return false }
            position += 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return true
            }
            while true {
                skipWhitespace()
                guard let key = rawKey() else { return false }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return false }
                position += 1
                guard field(&self, key) else { return false }
                skipWhitespace()
                guard position < bytes.count else { return false }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return true
                } else {
                    return false
                }
            }
        }

        mutating func array<T>(_ element: (inout Parser) -> T?) -> [T]? {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else { return nil }
            position += 1
            var items: [T] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return items
            }
            while true {
                guard let item = element(&self) else { return nil }
                items.append(item)
                skipWhitespace()
                guard position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return items
                } else {
                    return nil
                }
            }
        }

        /// A key without escapes, as its bytes.
        mutating func rawKey() -> Key? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
            let start = position + 1
            var index = start
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    position = index + 1
                    return Key(bytes: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                index += 1
            }
            return nil
        }

        mutating func stringArray() -> [String]? {
            array { $0.string() }
        }

        /// `stringArray()`, or the array kept at `kept` when the text here is the same bytes as its text (a complete
        /// array's text parses the same wherever it appears); keeps what it decodes there.
        mutating func stringArray(repeating kept: WritableKeyPath<Parser, RepeatedValue?>) -> [String]? {
            skipWhitespace()
            let start = position
            if let last = self[keyPath: kept], start + last.text.count <= bytes.count,
                memcmp(bytes.baseAddress! + start, bytes.baseAddress! + last.text.lowerBound, last.text.count) == 0
            {
                position = start + last.text.count
                return last.value
            }
            guard let value = stringArray() else { return nil }
            self[keyPath: kept] = RepeatedValue(text: start..<position, value: value)
            return value
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] { return false }
            position += count
            return true
        }

        mutating func bool() -> Bool? {
            skipWhitespace()
            if literal("true") { return true }
            if literal("false") { return false }
            return nil
        }

        /// A plain integer (`-?digits`); fractions and exponents give up.
        mutating func integer() -> Int? {
            skipWhitespace()
            let start = position
            guard let end = numberEnd(),
                bytes[start..<end].allSatisfy({ $0 == UInt8(ascii: "-") || ($0 >= 0x30 && $0 <= 0x39) })
            else {
                return nil
            }
            position = end
            return Int(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
        }

        mutating func double() -> Double? {
            skipWhitespace()
            let start = position
            guard let end = numberEnd() else { return nil }
            position = end
            // Out of range: left to the slow path, which does not turn it into infinity.
            return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)).flatMap {
                $0.isFinite ? $0 : nil
            }
        }

        /// The end of a JSON number starting here (RFC 8259 §6 grammar), or `nil`.
        func numberEnd() -> Int? { JSONTokens.numberEnd(in: bytes, from: position) }

        /// A string value; `nil` for another type, a bad escape, a control character or invalid UTF-8.
        mutating func string() -> String? {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\""),
                let (text, end) = JSONTokens.string(in: bytes, at: position)
            else { return nil }
            position = end
            return text
        }

        /// Skips any JSON value (for `$schema`, whose content is free).
        mutating func skipValue() -> Bool {
            skipWhitespace()
            guard position < bytes.count else { return false }
            switch bytes[position] {
            case UInt8(ascii: "\""): return string() != nil
            case UInt8(ascii: "{"): return object { parser, _ in parser.skipValue() }
            case UInt8(ascii: "["): return array { $0.skipValue() ? () : nil } != nil
            case UInt8(ascii: "t"), UInt8(ascii: "f"): return bool() != nil
            case UInt8(ascii: "n"): return literal("null")
            default:
                guard let end = numberEnd() else { return false }
                position = end
                return true
            }
        }

        /// A sub-value decoded with `JSONDecoder` from its own bytes, after the unknown-field check on `shape`;
        /// `nil` (give up) on any problem, which the slow path then reports.
        mutating func decoded<T: Decodable>(_ type: T.Type, shape: KnownFields.Shape) -> T? {
            skipWhitespace()
            let start = position
            guard skipValue() else { return nil }
            let slice = data.subdata(in: (data.startIndex + start)..<(data.startIndex + position))
            guard KnownFields.check(slice, shape: shape, file: "").isEmpty else { return nil }
            return try? JSONDecoder().decode(T.self, from: slice)
        }
    }
}

extension MockSetFastDecoder {
    /// The `index.json` at `url` as `ConfigFile.decode` reads it, through `decode` when it takes the file: the same
    /// `MockSetFile` without `JSONDecoder`'s pass (most of reading a 100,000-stub set for `mockd diff` or
    /// `import-har --merge`); any error comes from the slow path, in its words.
    /// - Throws: `ConfigError` as `ConfigFile.decode(_:at:display:missing:)`.
    static func decodeIndex(at url: URL, display: String, missing: String) throws -> MockSetFile {
        let data = try ConfigFile.read(at: url, display: display, missing: missing)
        return try decode(data) ?? ConfigFile.decode(MockSetFile.self, from: data, display: display)
    }
}
