public import Foundation
import MockdPlatform

/// `log.version` and `log.creator` of a HAR read by `HARStreamReader`, and how many entries it listed.
public struct HARLogInfo: Sendable, Equatable {
    /// `log.version` (a number is written as text).
    public var version: String?
    /// `log.creator.name` and version, e.g. `WebInspector 537.36`.
    public var creator: String?
    /// How many `log.entries` were handed to the callback.
    public var entryCount: Int
}

/// Reads a HAR file in bounded memory: the file is read in chunks, a structural scanner finds where each
/// `log.entries[i]` starts and ends, and only that element is parsed (with `JSONSerialization`) and turned
/// into a `HAREntry` by the same code as `HARReader` before it is handed to a callback.
///
/// Accepts what `HARReader.parse` accepts (UTF-8 BOM, HAR 1.1, `log.version`/`log.creator` before or after
/// the entries, extra fields) and fails with the same errors. A file is only known to be valid at its end:
/// the callback may already have seen entries when the reader throws, so a caller must not write anything
/// before `read` returns.
///
/// Peak memory is one chunk plus the largest single entry (and what the callback keeps). Files that cannot be
/// streamed (UTF-16/UTF-32 text, a top level that is not an object, so not a HAR) are parsed whole by
/// `HARReader`, which gives the exact error. One difference is by design: a `log` with two `entries` keys (a
/// duplicate key, of which a whole-file parse keeps the last) yields the entries of both arrays.
public struct HARStreamReader: Sendable {
    /// 1 MiB.
    public static let defaultChunkSize = 1 << 20

    /// Bytes read per `read(2)` call (at least 4).
    public var chunkSize: Int

    /// How far the reader is, reported after each chunk.
    public struct Progress: Sendable, Equatable {
        /// Bytes of the file read so far (a BOM included).
        public var bytesRead: Int
        /// The file size when reading started; 0 for a pipe (its size is not known).
        public var totalBytes: Int
        /// Entries handed to the callback so far.
        public var entries: Int
    }

    /// - Parameter chunkSize: Bytes per read; small sizes are for tests (entries straddling chunks).
    public init(chunkSize: Int = HARStreamReader.defaultChunkSize) {
        self.chunkSize = max(4, chunkSize)
    }

    /// Reads the HAR file at `url`, calling `entry` for each `log.entries[i]` in order.
    ///
    /// - Parameters:
    ///   - displayName: How to name the file in errors (defaults to its path).
    ///   - progress: Called after each chunk.
    ///   - entry: Receives each entry; an error it throws ends the read.
    /// - Returns: `log.version`, `log.creator` and the number of entries.
    /// - Throws: `HARImportError` as `HARReader.read(contentsOf:displayName:)` does, with the same messages.
    public func read(
        contentsOf url: URL,
        displayName: String? = nil,
        progress: ((Progress) -> Void)? = nil,
        entry: (HAREntry) throws -> Void
    ) throws -> HARLogInfo {
        try readPending(contentsOf: url, displayName: displayName, progress: progress) { try entry($0.entry()) }
    }

    /// `read(contentsOf:displayName:progress:entry:)`, handing on each entry as scanned, to be parsed by
    /// `HARPendingEntry.entry()` on any thread (`HARReadAhead` parses them on threads of their own). A parse
    /// error is then thrown by `entry()`, not by this method: take the first error in entry order.
    func readPending(
        contentsOf url: URL,
        displayName: String? = nil,
        progress: ((Progress) -> Void)? = nil,
        pending: (HARPendingEntry) throws -> Void
    ) throws -> HARLogInfo {
        let name = displayName ?? url.path
        // Missing, unreadable, a folder: the whole-file reader names the problem as before.
        guard let file = try? FileDescriptor.open(url.path, .read) else {
            return try Self.wholeFile(HARReader.read(contentsOf: url, displayName: name), pending)
        }
        defer { file.close() }
        // A file's size is known; a pipe's (`gunzip -c x.har.gz | mockd import-har /dev/stdin`) or a terminal's is
        // not, and it is streamed all the same. A folder or socket: the whole-file reader names it.
        let total: Int?
        switch file.kind() {
        case .regular(let size)?: total = size
        case .pipe?, .characterDevice?: total = nil
        default:
            return try Self.wholeFile(HARReader.read(contentsOf: url, displayName: name), pending)
        }
        return try withoutActuallyEscaping(pending) { pending in
            let scanner = HARStreamScanner(fileName: name, onEntry: pending)
            var buffer = [UInt8](repeating: 0, count: chunkSize)
            var bytesRead = 0
            while true {
                let count = try buffer.withUnsafeMutableBytes { try Self.fill($0, from: file, name: name) }
                if count == 0 { break }
                bytesRead += count
                try buffer.withUnsafeBufferPointer { try scanner.feed(UnsafeBufferPointer(rebasing: $0[..<count])) }
                if scanner.wantsWholeFile {
                    // Decided at the first chunk (UTF-16 text, a top level that is not an object). A pipe cannot be
                    // read again: that chunk and the rest of it are parsed whole.
                    guard total == nil else {
                        return try Self.wholeFile(HARReader.read(contentsOf: url, displayName: name), pending)
                    }
                    var data = Data(buffer[..<count])
                    do {
                        data.append(try UserFile.readToEnd(file))
                    } catch {
                        throw HARImportError(.unreadable, file: name, message: "cannot read the file (\(error))")
                    }
                    return try Self.wholeFile(HARReader.parse(data, fileName: name), pending)
                }
                progress?(
                    Progress(
                        bytesRead: bytesRead,
                        totalBytes: total.map { max($0, bytesRead) } ?? 0,
                        entries: scanner.entryCount
                    )
                )
            }
            return try scanner.finish()
        }
    }

    /// Scans HAR bytes already in memory in chunks of `chunkSize`, exactly as `read` scans a file.
    /// - Throws: `HARImportError` as for `read(contentsOf:displayName:progress:entry:)`.
    public func parse(_ data: Data, fileName: String, entry: (HAREntry) throws -> Void) throws -> HARLogInfo {
        try withoutActuallyEscaping(entry) { entry in
            let scanner = HARStreamScanner(fileName: fileName, onEntry: { try entry($0.entry()) })
            try data.withUnsafeBytes { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                var start = 0
                while start < bytes.count, !scanner.wantsWholeFile {
                    let end = min(start + chunkSize, bytes.count)
                    try scanner.feed(UnsafeBufferPointer(rebasing: bytes[start..<end]))
                    start = end
                }
            }
            if scanner.wantsWholeFile {
                return try Self.wholeFile(HARReader.parse(data, fileName: fileName)) { try entry($0.entry()) }
            }
            return try scanner.finish()
        }
    }

    /// Hands the entries of a whole-file parse to the callback.
    private static func wholeFile(
        _ archive: @autoclosure () throws -> HARArchive,
        _ pending: (HARPendingEntry) throws -> Void
    ) throws
        -> HARLogInfo
    {
        let archive = try archive()
        for item in archive.entries { try pending(HARPendingEntry(parsed: item)) }
        return HARLogInfo(version: archive.version, creator: archive.creator, entryCount: archive.entries.count)
    }

    /// Reads until `buffer` is full or the file ends; returns the byte count.
    private static func fill(
        _ buffer: UnsafeMutableRawBufferPointer,
        from file: FileDescriptor,
        name: String
    ) throws -> Int {
        do {
            return try file.readFully(into: buffer)
        } catch {
            throw HARImportError(
                .unreadable,
                file: name,
                message: "cannot read the file (\(FileDescriptor.message(of: error)))"
            )
        }
    }
}

/// The structural scanner behind `HARStreamReader`.
///
/// It walks only the skeleton of a HAR — the top-level object, `log`, and the `log.entries` array — byte by
/// byte, checking its punctuation as `JSONSerialization` would. Every other value (an entry, `log.creator`,
/// `log.pages`, a key) is delimited by tracking strings, escapes and bracket nesting, then parsed whole with
/// `JSONSerialization`, wrapped in `[…]` so that any value parses; error offsets are shifted back to file
/// offsets, so messages and line numbers match a whole-file parse.
final class HARStreamScanner {
    private enum Level { case top, log }

    /// What the next non-whitespace skeleton byte may be.
    private enum Expect {
        case root
        case afterRoot
        /// A key or `}` (after `{`, and after `,` since the parser allows a trailing comma).
        case key(Level)
        case colon(Level)
        case value(Level)
        /// `,` or `}` after a member.
        case next(Level)
        /// An element or `]` of `log.entries`.
        case element
        /// `,` or `]` after an element.
        case nextElement
    }

    /// What a delimited value is, once complete.
    private enum Purpose {
        case key(Level)
        case member(Level, String)
        case entry
    }

    private enum ValueKind { case none, container, string, scalar }

    /// A member of the skeleton: not seen, an object/array being streamed, or some other value.
    private enum Found {
        case missing
        case streamed
        case other(JSONNode)
    }

    private let fileName: String
    private let onEntry: (HARPendingEntry) throws -> Void

    /// The file's first non-object byte or UTF-16/32 text: `HARReader` must parse it whole.
    private(set) var wantsWholeFile = false
    private(set) var entryCount = 0

    private var started = false
    /// File offset (after a BOM) of the current chunk's first byte.
    private var chunkStart = 0
    private var prefix = Data()
    /// Line feeds before the current position (strings are not counted: a valid string has none).
    private var newlines = 0
    private var lastContentLine: Int?

    private var expect = Expect.root
    private var key = ""
    private var log = Found.missing
    private var entries = Found.missing
    private var version = JSONNode(nil, path: "log.version")
    private var creator = JSONNode(nil, path: "log.creator")

    // The value being delimited.
    private var kind = ValueKind.none
    private var purpose = Purpose.entry
    private var valueStart = 0
    private var valueLine = 1
    /// Bytes of the value from earlier chunks.
    private var carried: [UInt8] = []
    /// Where the value starts in the current chunk (0 when it began in an earlier one).
    private var segmentStart = 0
    private var closers: [UInt8] = []
    private var inString = false
    private var escaped = false

    init(fileName: String, onEntry: @escaping (HARPendingEntry) throws -> Void) {
        self.fileName = fileName
        self.onEntry = onEntry
    }

    /// Scans the next chunk of the file.
    func feed(_ chunk: UnsafeBufferPointer<UInt8>) throws {
        var index = 0
        if !started {
            started = true
            if chunk.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
            let head = chunk[index..<min(index + 4, chunk.count)]
            if head.contains(0) || head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) {
                wantsWholeFile = true
                return
            }
            chunkStart = -index
        }
        if prefix.count < 64 {
            let from = max(index, prefix.count - chunkStart)
            prefix.append(contentsOf: chunk[from..<min(chunk.count, from + 64 - prefix.count)])
        }
        segmentStart = 0
        let count = chunk.count
        while index < count {
            if kind != .none {
                index = try continueValue(chunk, from: index)
                continue
            }
            let byte = chunk[index]
            if JSONSyntaxLocation.isJSONWhitespace(byte) {
                if byte == 0x0A { newlines += 1 }
                index += 1
                continue
            }
            lastContentLine = newlines + 1
            let position = chunkStart + index
            switch expect {
            case .root:
                guard byte == UInt8(ascii: "{") else {
                    // Not an object, so not a HAR: the whole-file parse gives the exact message.
                    wantsWholeFile = true
                    return
                }
                expect = .key(.top)
            case .afterRoot:
                throw invalid(at: position)
            case .key(let level):
                if byte == UInt8(ascii: "\"") {
                    beginValue(.string, .key(level), chunk: chunk, at: index)
                } else if byte == UInt8(ascii: "}") {
                    expect = Self.afterClosing(level)
                } else {
                    throw invalid(at: position)
                }
            case .colon(let level):
                guard byte == UInt8(ascii: ":") else { throw invalid(at: position) }
                expect = .value(level)
            case .value(let level):
                switch (level, key, byte) {
                case (.top, "log", UInt8(ascii: "{")):
                    log = .streamed
                    expect = .key(.log)
                case (.log, "entries", UInt8(ascii: "[")):
                    entries = .streamed
                    expect = .element
                default:
                    try beginAnyValue(.member(level, key), chunk: chunk, at: index)
                }
            case .next(let level):
                if byte == UInt8(ascii: ",") {
                    expect = .key(level)
                } else if byte == UInt8(ascii: "}") {
                    expect = Self.afterClosing(level)
                } else {
                    throw invalid(at: position)
                }
            case .element:
                if byte == UInt8(ascii: "]") {
                    expect = .next(.log)
                } else {
                    try beginAnyValue(.entry, chunk: chunk, at: index)
                }
            case .nextElement:
                if byte == UInt8(ascii: ",") {
                    expect = .element
                } else if byte == UInt8(ascii: "]") {
                    expect = .next(.log)
                } else {
                    throw invalid(at: position)
                }
            }
            if kind == .none { index += 1 }
        }
        if kind != .none {
            carried.append(contentsOf: chunk[segmentStart..<count])
        }
        chunkStart += count
    }

    /// The end of the file: the version and creator, or the error a whole-file parse would give.
    func finish() throws -> HARLogInfo {
        if kind != .none {
            // Ends inside a value: the parser names the first problem in what was read (or the truncation).
            if let last = carried.lastIndex(where: { !JSONSyntaxLocation.isJSONWhitespace($0) }) {
                lastContentLine = valueLine + JSONSyntaxLocation.lineNumber(carried[..<last]) - 1
            }
            let bytes = Data([UInt8(ascii: "[")] + carried)
            _ = try Self.parse(bytes, context: parseContext(openCount: 1, closeCount: 0))
            throw jsonError(detail: JSONSyntaxLocation.truncatedDetail, line: { _ in nil })
        }
        guard case .afterRoot = expect else {
            // Truncated, or nothing but whitespace (the message then says that the file is empty).
            throw jsonError(detail: JSONSyntaxLocation.truncatedDetail, line: { _ in nil })
        }
        switch log {
        case .missing: throw HARReader.logError(JSONNode(nil, path: "log"), file: fileName)
        case .other(let node): throw HARReader.logError(node, file: fileName)
        case .streamed: break
        }
        switch entries {
        case .missing: throw HARReader.entriesError(JSONNode(nil, path: "log.entries"), file: fileName)
        case .other(let node): throw HARReader.entriesError(node, file: fileName)
        case .streamed: break
        }
        let info = HARReader.logInfo(version: version, creator: creator)
        return HARLogInfo(version: info.version, creator: info.creator, entryCount: entryCount)
    }

    // MARK: - Delimiting values

    private func beginAnyValue(_ purpose: Purpose, chunk: UnsafeBufferPointer<UInt8>, at index: Int) throws {
        let byte = chunk[index]
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["): beginValue(.container, purpose, chunk: chunk, at: index)
        case UInt8(ascii: "\""): beginValue(.string, purpose, chunk: chunk, at: index)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"),
            UInt8(ascii: "n"):
            beginValue(.scalar, purpose, chunk: chunk, at: index)
        default:
            throw invalid(at: chunkStart + index)
        }
    }

    private func beginValue(_ kind: ValueKind, _ purpose: Purpose, chunk: UnsafeBufferPointer<UInt8>, at index: Int) {
        self.kind = kind
        self.purpose = purpose
        valueStart = chunkStart + index
        valueLine = newlines + 1
        segmentStart = index
        carried.removeAll(keepingCapacity: true)
        closers.removeAll(keepingCapacity: true)
        inString = false
        escaped = false
    }

    /// Scans the value from `start`; returns where scanning stopped (the end of the chunk, or the byte after
    /// the value — for a scalar, its delimiter, which the skeleton then reads).
    private func continueValue(_ chunk: UnsafeBufferPointer<UInt8>, from start: Int) throws -> Int {
        let count = chunk.count
        var index = start
        switch kind {
        case .none:
            return index
        case .container:
            var stack: [UInt8] = []
            swap(&stack, &closers)
            defer { swap(&stack, &closers) }
            var inString = self.inString
            var escaped = self.escaped
            var lines = 0
            var done = false
            if start == segmentStart, stack.isEmpty {
                // The opening bracket.
                stack.append(chunk[index] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                index += 1
            }
            scan: while index < count {
                if inString {
                    if escaped {
                        escaped = false
                        index += 1
                    }
                    while index < count {
                        let byte = chunk[index]
                        if byte == 0x22 || byte == 0x5C { break }
                        index += 1
                    }
                    guard index < count else { break scan }
                    if chunk[index] == 0x5C {
                        escaped = true
                    } else {
                        inString = false
                    }
                    index += 1
                    continue
                }
                let byte = chunk[index]
                index += 1
                switch byte {
                case 0x22: inString = true
                case 0x7B: stack.append(0x7D)
                case 0x5B: stack.append(0x5D)
                case 0x7D, 0x5D:
                    // A mismatched bracket ends the value too: the parser then reports it.
                    if stack.last == byte { stack.removeLast() } else { stack.removeAll() }
                    if stack.isEmpty {
                        done = true
                        break scan
                    }
                case 0x0A: lines += 1
                default: break
                }
            }
            self.inString = inString
            self.escaped = escaped
            newlines += lines
            if done { try completeValue(chunk, end: index, delimiter: nil) }
            return done ? index : count
        case .string:
            if start == segmentStart, !inString {
                inString = true  // the opening quote
                index += 1
            }
            while index < count {
                let byte = chunk[index]
                index += 1
                if escaped {
                    escaped = false
                } else if byte == 0x5C {
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                    try completeValue(chunk, end: index, delimiter: nil)
                    return index
                }
            }
            return count
        case .scalar:
            while index < count, Self.isScalarByte(chunk[index]) { index += 1 }
            guard index < count else { return count }
            try completeValue(chunk, end: index, delimiter: chunk[index])
            return index
        }
    }

    /// Letters, digits, `+`, `-`, `.`: the bytes of `true`, `null`, `-1.5e+3` and of misspellings of them.
    @inline(__always)
    private static func isScalarByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// Parses the finished value (carried bytes + `chunk[segmentStart..<end]`) and hands it on.
    private func completeValue(_ chunk: UnsafeBufferPointer<UInt8>, end: Int, delimiter: UInt8?) throws {
        // A scalar is parsed next to the byte that really follows it: the parser's verdict on a misspelt
        // literal depends on it (`tru}` and `tru ` fail differently).
        var open: [UInt8] = [UInt8(ascii: "[")]
        var close: [UInt8] = [UInt8(ascii: "]")]
        if let delimiter {
            switch delimiter {
            case UInt8(ascii: "}"):
                open = Array(#"{"":"#.utf8)
                close = [delimiter]
            case UInt8(ascii: "]"): break
            default: close = [delimiter, UInt8(ascii: "]")]  // `,]` is allowed: a trailing comma
            }
            // … and with more bytes after it, as in the file (`[tru]` at the very end fails differently again).
            close += Array("        ".utf8)
        }
        var bytes = Data(capacity: open.count + carried.count + (end - segmentStart) + close.count)
        bytes.append(contentsOf: open)
        bytes.append(contentsOf: carried)
        bytes.append(UnsafeBufferPointer(rebasing: chunk[segmentStart..<end]))
        bytes.append(contentsOf: close)
        carried.removeAll(keepingCapacity: carried.count <= 1 << 16)
        kind = .none
        if case .entry = purpose {
            // Parsed by whoever takes the entry (on another thread in an import), with what its errors need.
            let pending = HARPendingEntry(
                index: entryCount,
                wrapped: bytes,
                context: parseContext(openCount: open.count, closeCount: close.count)
            )
            lastContentLine = newlines + 1
            entryCount += 1
            expect = .nextElement
            try onEntry(pending)
            return
        }
        let value = try Self.parse(bytes, context: parseContext(openCount: open.count, closeCount: close.count))
        lastContentLine = newlines + 1
        switch purpose {
        case .key(let level):
            // A key: always a string (the scanner only starts a key at a quote).
            key = value as? String ?? ""
            expect = .colon(level)
        case .member(let level, let name):
            let path = level == .top ? name : "log.\(name)"
            let node = JSONNode(value, path: path)
            switch (level, name) {
            case (.top, "log"): log = .other(node)
            case (.log, "entries"): entries = .other(node)
            case (.log, "version"): version = node
            case (.log, "creator"): creator = node
            default: break
            }
            expect = .next(level)
        case .entry:
            break  // handed on above
        }
    }

    /// What follows the `}` that closes an object at `level`: the end of the document, or the next member of
    /// the top-level object (after `log`).
    private static func afterClosing(_ level: Level) -> Expect {
        if case .top = level { return .afterRoot }
        return .next(.top)
    }

    /// Where the value just delimited sits in the file, for the errors of its parse (`parse(_:context:)`).
    struct ParseContext: Sendable {
        let fileName: String
        /// The file's first bytes, for the message.
        let prefix: Data
        let openCount: Int
        let closeCount: Int
        /// File offset of the value minus the bytes wrapped before it.
        let shift: Int
        let valueLine: Int
        let lastLine: Int?
    }

    private func parseContext(openCount: Int, closeCount: Int) -> ParseContext {
        ParseContext(
            fileName: fileName,
            prefix: prefix,
            openCount: openCount,
            closeCount: closeCount,
            shift: valueStart - openCount,
            valueLine: valueLine,
            lastLine: lastContentLine
        )
    }

    /// Parses a wrapped value (`[value]` or `{"":value}`) and returns the value; a parser error is reported
    /// with file offsets and the file's line.
    static func parse(_ bytes: Data, context: ParseContext) throws -> Any {
        let wrapped: Any
        do {
            // Raw U+FEFFs escaped (`RawByteOrderMarks`); an error is found in the bytes as written, for its offsets.
            wrapped =
                try (try? JSONObjectReader.jsonObject(with: RawByteOrderMarks.escaped(bytes)))
                ?? JSONSerialization.jsonObject(with: bytes, options: [])
        } catch {
            let detail = shiftingOffsets(in: JSONSyntaxLocation.parserDetail(error), by: context.shift)
            let openCount = context.openCount
            let closeCount = context.closeCount
            throw HARImportError(
                .notJSON,
                file: context.fileName,
                message: HARReader.notJSONMessage(
                    prefix: context.prefix,
                    detail: detail,
                    line: { offset in
                        let end = min(max(offset - context.shift, openCount), bytes.count - closeCount)
                        return context.valueLine
                            + JSONSyntaxLocation.lineNumber(bytes[openCount..<max(openCount, end)]) - 1
                    },
                    lastLine: { context.lastLine }
                )
            )
        }
        return unwrapped(wrapped)
    }

    /// The value inside a parsed wrapper (`[value]` or `{"":value}`).
    static func unwrapped(_ wrapped: Any) -> Any {
        if let array = wrapped as? [Any], let first = array.first { return first }
        if let object = wrapped as? [String: Any], let first = object[""] { return first }
        return NSNull()
    }

    /// `Invalid value around character 7.` with every offset (`character N`, `… at N`) moved by `shift`.
    static func shiftingOffsets(in detail: String, by shift: Int) -> String {
        var result = ""
        var rest = Substring(detail)
        func nextMarker() -> Range<Substring.Index>? {
            [rest.range(of: "character "), rest.range(of: " at ")].compactMap { $0 }.min {
                $0.lowerBound < $1.lowerBound
            }
        }
        while let range = nextMarker() {
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            if let number = Int(digits) {
                result += String(number + shift)
                rest = rest.dropFirst(digits.count)
            }
        }
        return result + rest
    }

    private func invalid(at position: Int) -> HARImportError {
        let line = newlines + 1
        return jsonError(detail: "Invalid value around character \(position).", line: { _ in line })
    }

    private func jsonError(detail: String, line: (Int) -> Int?) -> HARImportError {
        let lastLine = lastContentLine
        return HARImportError(
            .notJSON,
            file: fileName,
            message: HARReader.notJSONMessage(prefix: prefix, detail: detail, line: line, lastLine: { lastLine })
        )
    }
}
