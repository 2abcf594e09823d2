import Foundation

/// Finds the timestamps of a recorded answer (`mockd import-har`), so they can be served shifted to the session's clock
/// (`rebaseDates`, `DateShift`): in a JSON body, string values that are ISO 8601 / RFC 3339 date-times, dates or
/// HTTP-dates, and Unix times in seconds or milliseconds (numbers or digit strings) under date-named fields; in the
/// headers, values that are such a date (`Expires`, `Last-Modified`) and the `Expires` attribute of `Set-Cookie`.
///
/// What is left alone, so an answer never changes where it should not: numbers under names that do not say "date"
/// (ids, counts, versions, durations such as `expiresIn`), values under names that say birth or version
/// (`dateOfBirth`, `apiVersion: "2024-06-20"`), and instants more than 50 years from the recording (`9999-12-31`
/// meaning "never", `1970-01-01`).
enum DateFields {
    /// How far from the recording a date-time written as text may be and still be taken for one of its dates, in ms
    /// (30 years): `9999-12-31` ("never") and `1970-01-01` are not.
    static let textSpanMs: Int64 = 30 * 365 * 86_400_000
    /// The same for a Unix time (20 years): `0`, `1` or a duration under a date-named field is not one.
    static let epochSpanMs: Int64 = 20 * 365 * 86_400_000

    /// The recording times the spans are taken around, in ms since 1970 (1990-01-01 to 9999-12-31): a recording
    /// dated outside them (a broken or hostile HAR's `startedDateTime: "1005-08-30…"`, a hand-written `recordedAt`)
    /// counts as made at the nearer end, so the spans below are always ranges and never overflow.
    static let recordingTimesMs: ClosedRange<Int64> = 631_152_000_000...253_402_300_799_999

    /// The instants (ms since 1970) a date written as text of a recording made at `recordedAtMs` may have.
    static func plausible(around recordedAtMs: Int64) -> ClosedRange<Int64> {
        let recorded = min(max(recordedAtMs, recordingTimesMs.lowerBound), recordingTimesMs.upperBound)
        return (recorded - textSpanMs)...(recorded + textSpanMs)
    }

    /// The instants a Unix time of a recording made at `recordedAtMs` may have.
    static func plausibleEpoch(around recordedAtMs: Int64) -> ClosedRange<Int64> {
        let recorded = min(max(recordedAtMs, recordingTimesMs.lowerBound), recordingTimesMs.upperBound)
        return max(1, recorded - epochSpanMs)...(recorded + epochSpanMs)
    }

    /// Words a date-named field's name ends with (after a unit such as `Ms` or `_seconds`): `createdAt`,
    /// `updated_at_ms`, `expiryDate`, `lastSeen`, `timestamp`, `exp` (JWT claims), `X-RateLimit-Reset`.
    static let dateWords: Set<String> = [
        "at", "date", "time", "timestamp", "ts", "on", "until", "since", "expires", "expiry", "expiration", "deadline",
        "created", "updated", "modified", "seen", "exp", "iat", "nbf", "start", "end", "reset", "due", "when",
        "datetime", "day",
    ]

    /// Unit words dropped from the end of a name first (`createdAtMs`, `expires_at_millis`).
    static let unitWords: Set<String> = [
        "ms", "millis", "milliseconds", "msec", "s", "sec", "secs", "seconds", "epoch", "utc", "unix", "iso", "gmt",
    ]

    /// Words that keep a value as recorded whatever it looks like.
    static let keptWords: Set<String> = [
        "birth", "birthday", "dob", "born", "version", "id", "ids", "build", "revision",
    ]

    /// The lower-case words of a field or header name: `createdAtMs` → `created at ms`, `X-RateLimit-Reset` →
    /// `x rate limit reset`.
    static func words(_ name: String) -> [String] {
        var bytes = name  // withUTF8 makes a bridged string (Foundation's JSON keys on a Mac) contiguous first
        return bytes.withUTF8(asciiWords) ?? characterWords(name)
    }

    /// `words` by `Character`s and their Unicode properties: any name.
    static func characterWords(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for character in name {
            if character == "_" || character == "-" || character == "." || character == " " {
                if !current.isEmpty { words.append(current.lowercased()) }
                current = ""
                previousWasLower = false
                continue
            }
            if character.isUppercase, previousWasLower, !current.isEmpty {
                words.append(current.lowercased())
                current = ""
            }
            current.append(character)
            previousWasLower = character.isLowercase || character.isNumber
        }
        if !current.isEmpty { words.append(current.lowercased()) }
        return words
    }

    /// `words` of an ASCII name, read as bytes: the same split and case rules (for ASCII, upper case is `A`–`Z`,
    /// lower case `a`–`z`, numbers `0`–`9`), without a `Character` and its Unicode properties per byte — an import
    /// asks this of every field name of every JSON body. `nil` when a byte is not ASCII.
    private static func asciiWords(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        var words: [String] = []
        var current: [UInt8] = []
        var previousWasLower = false
        for byte in bytes {
            guard byte < 0x80 else { return nil }
            switch byte {
            case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: " "):
                if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
                current.removeAll(keepingCapacity: true)
                previousWasLower = false
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if previousWasLower, !current.isEmpty {
                    words.append(String(decoding: current, as: UTF8.self))
                    current.removeAll(keepingCapacity: true)
                }
                current.append(byte | 0x20)
                previousWasLower = false
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                current.append(byte)
                previousWasLower = true
            default:
                current.append(byte)
                previousWasLower = false
            }
        }
        if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
        return words
    }

    /// What `name` says of the value under it: `kept` as recorded whatever it is (a birth date, a version), or
    /// `dateNamed` (the name ends with a date word, so a number under it may be a Unix time). Never both.
    static func meaning(of name: String) -> (kept: Bool, dateNamed: Bool) {
        var nameWords = words(name)
        if nameWords.contains(where: keptWords.contains) { return (true, false) }
        while let last = nameWords.last, unitWords.contains(last), nameWords.count > 1 { nameWords.removeLast() }
        guard let last = nameWords.last else { return (false, false) }
        return (false, dateWords.contains(last))
    }

    /// One date found: where, and how it is written.
    struct Found: Sendable, Equatable {
        /// An RFC 6901 JSON pointer with `*` for every element of an array (`/messages/*/sentAt`), or a header name.
        let location: String
        /// `ISO 8601`, `date`, `HTTP-date`, `epoch s`, `epoch ms`.
        let kind: String
    }

    /// The dates of a JSON body recorded at `recordedAtMs`, in document order, array elements generalised to `*`
    /// (each pointer once). Empty when the body is not JSON.
    /// - Parameter parsed: What `body` parsed as with `JSONSerialization`, when the caller parsed it already.
    static func inJSON(_ body: Data, parsed: Any? = nil, recordedAtMs: Int64) -> [Found] {
        guard body.count <= 16 << 20, let first = body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            let root = parsed ?? (try? JSONObjectReader.jsonObject(with: body))
        else { return [] }
        var found: [Found] = []
        var seen: Set<String> = []
        func visit(_ value: Any, pointer: String, name: String?) {
            if let object = value as? [String: Any] {
                for key in object.keys.sorted() {
                    visit(object[key]!, pointer: pointer + "/" + pointerToken(key), name: key)
                }
            } else if let array = value as? [Any] {
                for item in array { visit(item, pointer: pointer + "/*", name: name) }
            } else if let kind = kind(of: value, name: name, recordedAtMs: recordedAtMs), seen.insert(pointer).inserted
            {
                found.append(Found(location: pointer, kind: kind))
            }
        }
        visit(root, pointer: "", name: nil)
        return found
    }

    /// `key` as an RFC 6901 reference token (`~` → `~0`, `/` → `~1`); the key itself when it has neither, as almost
    /// every key has (Foundation's replacing was half the time of this search in an import).
    static func pointerToken(_ key: String) -> String {
        guard key.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return key }
        return key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// How `value` (a Foundation JSON scalar) under `name` is written as a date, or `nil` when it is not one.
    static func kind(of value: Any, name: String?, recordedAtMs: Int64) -> String? {
        // One look at the name for both questions.
        let named = name.map(meaning(of:)) ?? (kept: false, dateNamed: false)
        if named.kept { return nil }
        let dateNamed = named.dateNamed
        let epochs = plausibleEpoch(around: recordedAtMs)
        if let text = value as? String {
            guard let parsed = DateText.parse(text, epochFrom: dateNamed ? epochs : nil),
                (parsed.isEpoch ? epochs : plausible(around: recordedAtMs)).contains(parsed.milliseconds)
            else { return nil }
            return kindName(parsed.layout)
        }
        // JSON true and false are NSNumbers too, of the Objective-C type `c`.
        guard dateNamed, let number = value as? NSNumber, number.objCType.pointee != CChar(UInt8(ascii: "c")) else {
            return nil
        }
        guard let parsed = DateText.epoch(number.stringValue, plausible: epochs) else { return nil }
        return kindName(parsed.layout)
    }

    static func kindName(_ layout: DateText.Layout) -> String {
        switch layout {
        case .iso: "ISO 8601"
        case .date: "date"
        case .http: "HTTP-date"
        case .epochSeconds: "epoch s"
        case .epochMilliseconds: "epoch ms"
        }
    }

    /// The response headers (by name, as recorded, each once) holding a date: a whole value that is a date-time or
    /// an HTTP-date, a Unix time under a date-named header (`X-RateLimit-Reset`), or a `Set-Cookie` with `Expires`.
    static func inHeaders(_ fields: [(name: String, value: String)], recordedAtMs: Int64) -> [Found] {
        let plausible = plausible(around: recordedAtMs)
        var found: [Found] = []
        // Header names are ASCII tokens (RFC 9110 §5.1): compared and trimmed on their bytes.
        for field in fields where !found.contains(where: { $0.location.caseInsensitiveEquals(field.name) }) {
            let value = field.value.trimmingWhitespace
            if field.name.caseInsensitiveEquals("Set-Cookie") {
                if let expires = cookieExpires(value), let parsed = DateText.parse(String(value[expires])),
                    plausible.contains(parsed.milliseconds)
                {
                    found.append(Found(location: field.name, kind: kindName(parsed.layout)))
                }
                continue
            }
            if let kind = kind(of: value, name: field.name, recordedAtMs: recordedAtMs) {
                found.append(Found(location: field.name, kind: kind))
            }
        }
        return found
    }

    /// The range of the date of a `Set-Cookie` value's `Expires` attribute (RFC 6265 §5.2.1), if any.
    static func cookieExpires(_ value: String) -> Range<String.Index>? {
        var searchFrom = value.startIndex
        while let semicolon = value[searchFrom...].firstIndex(of: ";") {
            let attribute = value[value.index(after: semicolon)...].drop { $0 == " " }
            let end = attribute.firstIndex(of: ";") ?? value.endIndex
            if attribute.lowercased().hasPrefix("expires=") {
                return attribute.index(attribute.startIndex, offsetBy: "expires=".count)..<end
            }
            searchFrom = value.index(after: semicolon)
        }
        return nil
    }
}
