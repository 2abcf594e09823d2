import Foundation
import MockdFormat

/// A control answer whose one large array (a journal's entries, the unmatched requests) is written while it is sent,
/// a few elements per write, instead of being built whole first.
///
/// Built whole, `journal.har` of 10,000 entries held a shared libmicrohttpd worker for 5.9 s and `unmatched` for
/// 2.3 s, and every other session's requests on that worker waited. Sent as a `LiveFeed` with an end, each write
/// encodes elements until about `pieceBytes` are ready, so the worker goes back to its other connections between
/// writes. The document is the one `ControlAPI.json` would write for the answer type (keys sorted, pretty-printed,
/// slashes unescaped): the rest of it is encoded once around a placeholder where the array goes, and each element is
/// encoded alone and indented to its place.
final class StreamedJSON: LiveFeed, @unchecked Sendable {
    /// How many bytes a write prepares at least before it stops encoding elements (the last element may pass it).
    static let pieceBytes = 32 * 1024

    private let prefix: Data
    private let suffix: Data
    private let indent: String
    private let count: Int
    private let element: @Sendable (Int) -> Data
    private let trailer: @Sendable () -> [String: JSONValue]
    /// Touched by the one worker writing this connection at a time.
    private var nextIndex = 0
    private var started = false
    private var finished = false

    var pollMs: Double { 0 }
    var isFinished: Bool { finished }
    var hasEnd: Bool { true }

    /// - Parameters:
    ///   - document: The answer with the array left empty: at `path` (keys from the top) it is replaced.
    ///   - count: How many elements the array has.
    ///   - element: Element `index`, made when it is written (from the writing worker's thread), in index order.
    ///   - trailer: Members of the array's object made after the last element (they depend on them all), written
    ///     right after the array: JSON members are unordered, so only these leave the sorted order.
    /// - Throws: `EncodingError` when the document cannot be encoded.
    init(
        _ document: some Encodable,
        arrayAt path: [String],
        count: Int,
        element: @escaping @Sendable (Int) -> any Encodable,
        trailer: @escaping @Sendable () -> [String: JSONValue] = { [:] }
    ) throws {
        let placeholder = "mockd-streamed-array-\(UUID().uuidString)"
        let skeleton = try JSONValue(parsing: Self.encoded(document))
        let text = try Self.encoded(Self.setting(.string(placeholder), at: path[...], in: skeleton))
        let quoted = Data("\"\(placeholder)\"".utf8)
        let range = text.range(of: quoted) ?? text.endIndex..<text.endIndex
        let before = text[..<range.lowerBound]
        prefix = before
        suffix = text[range.upperBound...]
        let lineStart = before.lastIndex(of: 0x0A).map { before.index(after: $0) } ?? before.startIndex
        indent = String(repeating: " ", count: before[lineStart...].prefix { $0 == 0x20 }.count)
        self.count = count
        self.element = { index in (try? Self.encoded(element(index))) ?? Data("null".utf8) }
        self.trailer = trailer
    }

    /// `value` as the control API writes JSON (keys sorted, pretty-printed, slashes unescaped), without a newline.
    static func encoded(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// `value` with `replacement` at `path` (keys from the top; missing objects on the way are made).
    static func setting(_ replacement: JSONValue, at path: ArraySlice<String>, in value: JSONValue) -> JSONValue {
        guard let key = path.first else { return replacement }
        var members: [String: JSONValue] = [:]
        if case .object(let existing) = value { members = existing }
        members[key] = setting(replacement, at: path.dropFirst(), in: members[key] ?? .object([:]))
        return .object(members)
    }

    /// The whole document at once (a small answer, sent with a length).
    func whole() -> Data {
        var data = Data()
        while let piece = next(now: 0) { data.append(piece) }
        return data
    }

    func next(now: UInt64) -> Data? {
        guard !finished else { return nil }
        var piece = Data()
        if !started {
            started = true
            piece.append(prefix)
            piece.append(UInt8(ascii: "["))
        }
        let elementIndent = indent + "  "
        while nextIndex < count, piece.count < Self.pieceBytes {
            piece.append(contentsOf: (nextIndex == 0 ? "\n" : ",\n").utf8)
            let text = String(decoding: element(nextIndex), as: UTF8.self)
            piece.append(
                contentsOf: text.split(separator: "\n", omittingEmptySubsequences: false)
                    .map { elementIndent + $0 }.joined(separator: "\n").utf8
            )
            nextIndex += 1
        }
        if nextIndex == count {
            // As JSONEncoder closes an array, an empty one included (`[`, an empty line, `]`).
            piece.append(contentsOf: (count > 0 ? "\n\(indent)" : "\n\n\(indent)").utf8)
            piece.append(UInt8(ascii: "]"))
            for (key, value) in trailer().sorted(by: { $0.key < $1.key }) {
                let name = (try? Self.encoded(key)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
                let text = (try? Self.encoded(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
                let indented = text.replacingOccurrences(of: "\n", with: "\n" + indent)
                piece.append(contentsOf: ",\n\(indent)\(name) : \(indented)".utf8)
            }
            piece.append(suffix)
            piece.append(0x0A)
            finished = true
        }
        return piece
    }
}
