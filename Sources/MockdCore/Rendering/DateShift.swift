import Foundation
import MockdFormat

/// A recorded answer's dates served relative to the session's clock (`rebaseDates`): each date at `bodyPointers` and
/// in `headerNames` moves by the session's now minus `recordedAtMs` and is written as recorded (its layout, zone and
/// precision); a date (`2026-11-30`) moves by whole days (UTC). A recorded "expires in 5 minutes" served a week
/// later still expires 5 minutes after the session's now. The rest of the body keeps its bytes: values are replaced
/// where they stand.
///
/// A value found there that is not a date (the body was edited) is left as it is.
struct DateShift: Sendable, Equatable {
    /// When the recording was made (the HAR entry's `startedDateTime`), in ms since 1970.
    let recordedAtMs: Int64
    /// RFC 6901 pointers, `*` standing for every element of an array, as tokens (unescaped).
    let bodyPointers: [[String]]
    /// Header names (any case) whose dates move: a whole value, or `Set-Cookie`'s `Expires` attribute.
    let headerNames: [String]

    /// - Throws: a message for a `recordedAt` that is not an RFC 3339 date-time with a zone, or a pointer that does
    ///   not start with `/`.
    init(recordedAt: String, body: [String], headers: [String]) throws(TemplateProblem) {
        let recordedAtMs = try Self.milliseconds(recordedAt: recordedAt)
        try Self.check(body: body)
        self.recordedAtMs = recordedAtMs
        self.bodyPointers = body.map {
            $0.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(JSONPointerToken.unescaped)
        }
        self.headerNames = headers
    }

    /// Checks what `init` checks without building the shift: a set that does not rebase its dates still has them
    /// checked at load, at a tenth of the cost (building every shift was a quarter of a 10,000-stub start).
    /// - Throws: `init`'s message for the first problem.
    static func check(recordedAt: String, body: [String]) throws(TemplateProblem) {
        _ = try milliseconds(recordedAt: recordedAt)
        try check(body: body)
    }

    private static func milliseconds(recordedAt: String) throws(TemplateProblem) -> Int64 {
        guard let milliseconds = DateText.zonedISOInstantMs(recordedAt) else {
            throw TemplateProblem("recordedAt '\(recordedAt)' is not an RFC 3339 date-time with a zone")
        }
        return milliseconds
    }

    private static func check(body: [String]) throws(TemplateProblem) {
        for pointer in body where !(pointer.hasPrefix("/") || pointer.isEmpty) {
            throw TemplateProblem("'\(pointer)' is not a JSON pointer (RFC 6901: /field/0/name, * for every element)")
        }
    }

    /// How far the dates move when the session's clock reads `now`: ms, and whole UTC days for dates.
    func delta(now: Date) -> (milliseconds: Int64, days: Int64) {
        let nowMs = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let days =
            DateText.floorDivision(nowMs, 86_400_000).0 - DateText.floorDivision(recordedAtMs, 86_400_000).0
        return (nowMs - recordedAtMs, days)
    }

    /// `text` with its date moved, or `nil` when it is not a date; `number`: a JSON number, read as a Unix time.
    func shifted(_ text: String, number: Bool, now: Date) -> String? {
        let epochs = DateFields.plausibleEpoch(around: recordedAtMs)
        let parsed = number ? DateText.epoch(text, plausible: epochs) : DateText.parse(text, epochFrom: epochs)
        guard let parsed else { return nil }
        let (milliseconds, days) = delta(now: now)
        return parsed.shifted(byMs: milliseconds, days: days).text
    }

    /// The body with the dates at the pointers moved; unchanged when it is not JSON or holds none there.
    func body(_ body: Data, now: Date) -> Data {
        guard !bodyPointers.isEmpty else { return body }
        var scanner = JSONValueScanner(bytes: [UInt8](body))
        guard let values = scanner.values(at: bodyPointers) else { return body }
        var output = Data()
        output.reserveCapacity(body.count + 16)
        var position = 0
        let bytes = scanner.bytes
        for value in values {
            let isString = bytes[value.lowerBound] == UInt8(ascii: "\"")
            let inner = isString ? (value.lowerBound + 1)..<(value.upperBound - 1) : value
            // A string with escapes is no date mockd wrote or reads.
            guard !isString || !bytes[inner].contains(UInt8(ascii: "\\")),
                let replaced = shifted(String(decoding: bytes[inner], as: UTF8.self), number: !isString, now: now)
            else { continue }
            output.append(contentsOf: bytes[position..<inner.lowerBound])
            output.append(contentsOf: replaced.utf8)
            position = inner.upperBound
        }
        output.append(contentsOf: bytes[position...])
        return output
    }

    /// The headers with the dates of `headerNames` moved.
    func headers(_ headers: HTTPHeaders, now: Date) -> HTTPHeaders {
        guard !headerNames.isEmpty else { return headers }
        return HTTPHeaders(
            headers.fields.map { field in
                guard headerNames.contains(where: { $0.caseInsensitiveCompare(field.name) == .orderedSame }) else {
                    return field
                }
                if field.name.caseInsensitiveCompare("Set-Cookie") == .orderedSame {
                    guard let range = DateFields.cookieExpires(field.value),
                        let moved = shifted(String(field.value[range]), number: false, now: now)
                    else { return field }
                    var value = field.value
                    value.replaceSubrange(range, with: moved)
                    return .init(name: field.name, value: value)
                }
                let trimmed = field.value.trimmingCharacters(in: .whitespaces)
                guard let moved = shifted(trimmed, number: false, now: now) else { return field }
                return .init(name: field.name, value: moved)
            }
        )
    }
}

/// Finds the byte ranges of the scalar values at JSON pointers in a document, without decoding it: the values are
/// replaced where they stand, so the rest keeps its bytes.
struct JSONValueScanner {
    let bytes: [UInt8]
    private var position = 0
    private var found: [Range<Int>] = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    /// The ranges (in document order) of the strings (quotes included) and numbers at any of `pointers`; `nil` when
    /// the document is not well-formed JSON.
    mutating func values(at pointers: [[String]]) -> [Range<Int>]? {
        found = []
        skipWhitespace()
        guard value(path: [], pointers: pointers) else { return nil }
        return found
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    /// Whether a pointer's token names a path step: a member by its key, an array element (a step `\0N`) by `*` or
    /// its index.
    private static func token(_ expected: String, fits actual: String) -> Bool {
        guard actual.hasPrefix("\u{0}") else { return expected == actual }
        return expected == "*" || "\u{0}" + expected == actual
    }

    /// Whether `path` is one of the pointers.
    private static func matches(_ path: [String], _ pointers: [[String]]) -> Bool {
        pointers.contains { $0.count == path.count && zip($0, path).allSatisfy(token(_:fits:)) }
    }

    /// Whether some pointer continues below `path`.
    private static func leadsBelow(_ path: [String], _ pointers: [[String]]) -> Bool {
        pointers.contains { $0.count > path.count && zip($0, path).allSatisfy(token(_:fits:)) }
    }

    /// Reads one value; records it when `path` is a pointer's. Array elements are path tokens `\0N`.
    private mutating func value(path: [String], pointers: [[String]]) -> Bool {
        guard position < bytes.count else { return false }
        let start = position
        switch bytes[position] {
        case UInt8(ascii: "{"):
            position += 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return true
            }
            let descend = JSONValueScanner.leadsBelow(path, pointers)
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = string() else {
                    return false
                }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return false }
                position += 1
                skipWhitespace()
                guard value(path: path + [key], pointers: descend ? pointers : []) else { return false }
                skipWhitespace()
                guard position < bytes.count else { return false }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "}") else { return false }
                position += 1
                return true
            }
        case UInt8(ascii: "["):
            position += 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return true
            }
            let descend = JSONValueScanner.leadsBelow(path, pointers)
            var index = 0
            while true {
                skipWhitespace()
                let child = path + ["\u{0}\(index)"]
                guard value(path: child, pointers: descend ? pointers : []) else { return false }
                index += 1
                skipWhitespace()
                guard position < bytes.count else { return false }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "]") else { return false }
                position += 1
                return true
            }
        case UInt8(ascii: "\""):
            guard string() != nil else { return false }
        default:
            while position < bytes.count, !",]} \t\r\n".utf8.contains(bytes[position]) { position += 1 }
            guard position > start else { return false }
        }
        if !pointers.isEmpty, JSONValueScanner.matches(path, pointers) { found.append(start..<position) }
        return true
    }

    /// Reads a string (at its opening quote) and returns its text, escapes decoded; `nil` when unterminated.
    private mutating func string() -> String? {
        position += 1
        let start = position
        var escaped = false
        var hasEscapes = false
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
                hasEscapes = true
            } else if byte == UInt8(ascii: "\"") {
                let raw = bytes[start..<(position - 1)]
                guard hasEscapes else { return String(decoding: raw, as: UTF8.self) }
                let quoted = Data([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")])
                return (try? JSONSerialization.jsonObject(with: quoted, options: [.fragmentsAllowed])) as? String
            }
        }
        return nil
    }
}
