import Foundation

/// A timestamp as a recording wrote it: its instant and its exact layout, so that a shifted instant is written the
/// same way (the same separators, fraction digits and zone). Read and written with plain calendar arithmetic on the
/// proleptic Gregorian calendar (no `DateFormatter`), so a value round-trips byte for byte.
///
/// Layouts: ISO 8601 / RFC 3339 date-times (`2026-11-29T20:05:00Z`, `2026-11-29 20:05:00.123+01:00`, without a zone),
/// dates (`2026-11-29`), HTTP-dates (IMF-fixdate, RFC 9110 §5.6.7: `Sun, 29 Nov 2026 20:05:00 GMT`), and Unix times in
/// seconds or milliseconds (numbers, or digit strings).
struct DateText: Equatable, Sendable {
    enum Zone: Equatable, Sendable {
        /// No zone written: a wall-clock time, shifted as if it were UTC and written without a zone again.
        case none
        /// `Z` (or `z`).
        case utc(Character)
        /// `+01:00`, `+0100` or `+01`; seconds east of UTC.
        case offset(seconds: Int, colon: Bool, minutes: Bool)
    }

    enum Layout: Equatable, Sendable {
        /// `separator` is `T`, `t` or a space; `seconds` false for `HH:MM`; `fractionDigits` after `.` or `,`.
        case iso(separator: Character, seconds: Bool, fractionDigits: Int, fractionMark: Character, zone: Zone)
        /// `YYYY-MM-DD`: shifted by whole days.
        case date
        /// IMF-fixdate with `GMT` (or the `UTC` / `+0000` some servers write).
        case http(zone: String)
        /// Seconds since 1970, with `fractionDigits` after the point.
        case epochSeconds(fractionDigits: Int)
        case epochMilliseconds
    }

    /// Milliseconds since 1970-01-01T00:00:00Z (for `.none` zones: of the wall-clock time read as UTC).
    var milliseconds: Int64
    let layout: Layout
    /// The fraction digits past the milliseconds (`456` of `.123456`), which no shift in ms changes: written back as
    /// read.
    var subMilliseconds = ""

    init(milliseconds: Int64, layout: Layout, subMilliseconds: String = "") {
        self.milliseconds = milliseconds
        self.layout = layout
        self.subMilliseconds = subMilliseconds
    }

    /// The instant.
    var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// This timestamp `deltaMs` later (earlier when negative); a date moves by `days` instead.
    func shifted(byMs deltaMs: Int64, days: Int64) -> DateText {
        var copy = self
        copy.milliseconds += layout == .date ? days * 86_400_000 : deltaMs
        return copy
    }

    // MARK: Reading

    /// `text` as a timestamp string (the whole text), or `nil`. Digit strings are read as Unix times only when
    /// `epochFrom` says which instants are plausible (see `epoch(_:plausible:)`).
    static func parse(_ text: String, epochFrom plausible: ClosedRange<Int64>? = nil) -> DateText? {
        // Read in place (a copy of the bytes was a third of checking a date: every stub with `dates` checks one at load).
        if let parsed = text.utf8.withContiguousStorageIfAvailable({ parse($0, text, epochFrom: plausible) }) {
            return parsed
        }
        return Array(text.utf8).withUnsafeBufferPointer { parse($0, text, epochFrom: plausible) }
    }

    private static func parse(_ bytes: Bytes, _ text: String, epochFrom plausible: ClosedRange<Int64>?) -> DateText? {
        if let iso = parseISO(bytes) { return iso }
        if let http = parseHTTP(bytes) { return http }
        if let plausible, !bytes.isEmpty, bytes.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: ".") }) {
            return epoch(text, plausible: plausible)
        }
        return nil
    }

    private typealias Bytes = UnsafeBufferPointer<UInt8>

    /// A Unix time written as `text` (a JSON number or digit string) whose instant lies in `plausible` (ms since
    /// 1970): seconds (`1764446700`, `1764446700.25`) or milliseconds (`1764446700000`); `nil` otherwise, so ids,
    /// counts and durations are never taken for times.
    static func epoch(_ text: String, plausible: ClosedRange<Int64>) -> DateText? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = Int64(parts[0]), whole >= 0, parts[0].count <= 16 else { return nil }
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy(\.isASCII), Int64(fraction) != nil
            else { return nil }
            let scaled = Int64(fraction.prefix(3).padding(toLength: 3, withPad: "0", startingAt: 0)) ?? 0
            let milliseconds = whole &* 1000 &+ scaled
            guard plausible.contains(milliseconds) else { return nil }
            return DateText(
                milliseconds: milliseconds,
                layout: .epochSeconds(fractionDigits: fraction.count),
                subMilliseconds: String(fraction.dropFirst(3))
            )
        }
        if whole <= Int64.max / 1000, plausible.contains(whole * 1000) {
            return DateText(milliseconds: whole * 1000, layout: .epochSeconds(fractionDigits: 0))
        }
        if plausible.contains(whole) { return DateText(milliseconds: whole, layout: .epochMilliseconds) }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// The number written by `count` digits at `start`, or `nil`.
    private static func number(_ bytes: Bytes, _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[start..<(start + count)] {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// What an ISO 8601 / RFC 3339 text says, in plain values (no `Character` or string made): enough to check a date,
    /// and to make its `DateText`.
    private struct ISOFields {
        enum Zone {
            case none
            case utc(UInt8)
            case offset(seconds: Int, colon: Bool, minutes: Bool)
        }

        /// Milliseconds since 1970 (UTC; for `.none` of the wall-clock time read as UTC).
        var milliseconds: Int64
        /// `YYYY-MM-DD` alone.
        var isDate = false
        var separator = UInt8(ascii: "T")
        var hasSeconds = false
        var fractionDigits = 0
        var fractionMark = UInt8(ascii: ".")
        /// The fraction digits past the milliseconds, as offsets into the text.
        var subMilliseconds = 0..<0
        var zone = Zone.none
    }

    /// The milliseconds since 1970 of `text` when it is an RFC 3339 date-time with a zone (`Z` or an offset), else
    /// `nil`: what a recorded `dates.recordedAt` must be, checked for every stub that has one at load.
    static func zonedISOInstantMs(_ text: String) -> Int64? {
        func read(_ bytes: Bytes) -> Int64? {
            guard let fields = isoFields(bytes), !fields.isDate else { return nil }
            if case .none = fields.zone { return nil }
            return fields.milliseconds
        }
        return text.utf8.withContiguousStorageIfAvailable(read) ?? Array(text.utf8).withUnsafeBufferPointer(read)
    }

    private static func parseISO(_ bytes: Bytes) -> DateText? {
        guard let fields = isoFields(bytes) else { return nil }
        if fields.isDate { return DateText(milliseconds: fields.milliseconds, layout: .date) }
        let zone: Zone
        switch fields.zone {
        case .none: zone = .none
        case .utc(let mark): zone = .utc(Character(UnicodeScalar(mark)))
        case .offset(let seconds, let colon, let minutes):
            zone = .offset(seconds: seconds, colon: colon, minutes: minutes)
        }
        return DateText(
            milliseconds: fields.milliseconds,
            layout: .iso(
                separator: Character(UnicodeScalar(fields.separator)),
                seconds: fields.hasSeconds,
                fractionDigits: fields.fractionDigits,
                fractionMark: Character(UnicodeScalar(fields.fractionMark)),
                zone: zone
            ),
            subMilliseconds: fields.subMilliseconds.isEmpty
                ? "" : String(decoding: UnsafeBufferPointer(rebasing: bytes[fields.subMilliseconds]), as: UTF8.self)
        )
    }

    private static func isoFields(_ bytes: Bytes) -> ISOFields? {
        guard bytes.count >= 10, let year = number(bytes, 0, 4), bytes[4] == UInt8(ascii: "-"),
            let month = number(bytes, 5, 2), bytes[7] == UInt8(ascii: "-"), let day = number(bytes, 8, 2),
            isValidDate(year, month, day)
        else { return nil }
        let days = daysFromCivil(year, month, day)
        if bytes.count == 10 { return ISOFields(milliseconds: days * 86_400_000, isDate: true) }
        let separator = bytes[10]
        guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == 0x20,
            let hour = number(bytes, 11, 2), bytes.count >= 16, bytes[13] == UInt8(ascii: ":"),
            let minute = number(bytes, 14, 2), hour < 24, minute < 60
        else { return nil }
        var fields = ISOFields(milliseconds: 0, separator: separator)
        var position = 16
        var second = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: ":") {
            guard let value = number(bytes, position + 1, 2), value < 60 else { return nil }
            second = value
            fields.hasSeconds = true
            position += 3
        }
        var milliseconds = 0
        if fields.hasSeconds, position < bytes.count,
            bytes[position] == UInt8(ascii: ".") || bytes[position] == UInt8(ascii: ",")
        {
            fields.fractionMark = bytes[position]
            position += 1
            let start = position
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            fields.fractionDigits = position - start
            guard (1...9).contains(fields.fractionDigits) else { return nil }
            // The first three digits as ms, missing ones as zeros (`.5` is 500 ms).
            for offset in 0..<3 {
                milliseconds = milliseconds * 10 + (start + offset < position ? Int(bytes[start + offset] - 0x30) : 0)
            }
            if fields.fractionDigits > 3 { fields.subMilliseconds = (start + 3)..<position }
        }
        var offsetSeconds = 0
        if position < bytes.count {
            let mark = bytes[position]
            if mark == UInt8(ascii: "Z") || mark == UInt8(ascii: "z") {
                fields.zone = .utc(mark)
                position += 1
            } else if mark == UInt8(ascii: "+") || mark == UInt8(ascii: "-") {
                guard let hours = number(bytes, position + 1, 2), hours < 24 else { return nil }
                position += 3
                var minutes = 0
                var colon = false
                var hasMinutes = false
                if position < bytes.count, bytes[position] == UInt8(ascii: ":") {
                    guard let value = number(bytes, position + 1, 2), value < 60 else { return nil }
                    (minutes, colon, hasMinutes) = (value, true, true)
                    position += 3
                } else if let value = number(bytes, position, 2) {
                    guard value < 60 else { return nil }
                    (minutes, hasMinutes) = (value, true)
                    position += 2
                }
                offsetSeconds = (hours * 3600 + minutes * 60) * (mark == UInt8(ascii: "-") ? -1 : 1)
                fields.zone = .offset(seconds: offsetSeconds, colon: colon, minutes: hasMinutes)
            } else {
                return nil
            }
        }
        guard position == bytes.count else { return nil }
        let local = days * 86_400_000 + Int64(hour * 3600 + minute * 60 + second) * 1000 + Int64(milliseconds)
        fields.milliseconds = local - Int64(offsetSeconds) * 1000
        return fields
    }

    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func parseHTTP(_ bytes: Bytes) -> DateText? {
        // `Sun, 29 Nov 2026 20:05:00 GMT`: 29 bytes with GMT, 31 with +0000.
        guard bytes.count == 29 || bytes.count == 31, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20,
            weekdays.contains(String(decoding: bytes[0..<3], as: UTF8.self)), let day = number(bytes, 5, 2),
            bytes[7] == 0x20, let monthIndex = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)),
            bytes[11] == 0x20, let year = number(bytes, 12, 4), bytes[16] == 0x20, let hour = number(bytes, 17, 2),
            bytes[19] == UInt8(ascii: ":"), let minute = number(bytes, 20, 2), bytes[22] == UInt8(ascii: ":"),
            let second = number(bytes, 23, 2), bytes[25] == 0x20, hour < 24, minute < 60, second < 61,
            isValidDate(year, monthIndex + 1, day)
        else { return nil }
        let zone = String(decoding: bytes[26...], as: UTF8.self)
        guard ["GMT", "UTC", "+0000"].contains(zone) else { return nil }
        let seconds = daysFromCivil(year, monthIndex + 1, day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return DateText(milliseconds: seconds * 1000, layout: .http(zone: zone))
    }

    // MARK: Writing

    /// The timestamp written in its layout.
    var text: String {
        switch layout {
        case .epochMilliseconds:
            return String(milliseconds)
        case .epochSeconds(let fractionDigits):
            let (whole, rest) = DateText.floorDivision(milliseconds, 1000)
            guard fractionDigits > 0 else { return String(whole) }
            return "\(whole)." + fraction(rest, digits: fractionDigits)
        case .date:
            let (days, _) = DateText.floorDivision(milliseconds, 86_400_000)
            let (year, month, day) = DateText.civil(fromDays: days)
            return String(format: "%04d-%02d-%02d", year, month, day)
        case .http(let zone):
            let (days, rest) = DateText.floorDivision(milliseconds, 86_400_000)
            let (year, month, day) = DateText.civil(fromDays: days)
            let weekday = Int(((days % 7) + 11) % 7)  // 1970-01-01 was a Thursday
            let seconds = Int(rest / 1000)
            return String(
                format: "%@, %02d %@ %04d %02d:%02d:%02d %@",
                DateText.weekdays[weekday],
                day,
                DateText.months[month - 1],
                year,
                seconds / 3600,
                seconds / 60 % 60,
                seconds % 60,
                zone
            )
        case .iso(let separator, let hasSeconds, let fractionDigits, let fractionMark, let zone):
            var offsetSeconds = 0
            if case .offset(let seconds, _, _) = zone { offsetSeconds = seconds }
            let local = milliseconds + Int64(offsetSeconds) * 1000
            let (days, rest) = DateText.floorDivision(local, 86_400_000)
            let (year, month, day) = DateText.civil(fromDays: days)
            let seconds = Int(rest / 1000)
            var text = String(
                format: "%04d-%02d-%02d%@%02d:%02d",
                year,
                month,
                day,
                String(separator),
                seconds / 3600,
                seconds / 60 % 60
            )
            if hasSeconds { text += String(format: ":%02d", seconds % 60) }
            if fractionDigits > 0 { text += String(fractionMark) + fraction(rest % 1000, digits: fractionDigits) }
            switch zone {
            case .none: break
            case .utc(let mark): text.append(mark)
            case .offset(let seconds, let colon, let minutes):
                let magnitude = abs(seconds)
                text += (seconds < 0 ? "-" : "+") + String(format: "%02d", magnitude / 3600)
                if minutes { text += (colon ? ":" : "") + String(format: "%02d", magnitude / 60 % 60) }
            }
            return text
        }
    }

    /// `milliseconds` (0…999) as `digits` fraction digits, the digits past the milliseconds as read.
    private func fraction(_ milliseconds: Int64, digits: Int) -> String {
        let three = String(format: "%03lld", milliseconds)
        guard digits > 3 else { return String(three.prefix(digits)) }
        return three + subMilliseconds.padding(toLength: digits - 3, withPad: "0", startingAt: 0)
    }

    /// Whether the layout is a number (a JSON number stays a number).
    var isEpoch: Bool {
        switch layout {
        case .epochSeconds, .epochMilliseconds: return true
        default: return false
        }
    }

    // MARK: Calendar arithmetic

    /// `a / b` and `a % b` rounded toward minus infinity (dates before 1970 too).
    static func floorDivision(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let quotient = a / b
        let remainder = a % b
        return remainder < 0 ? (quotient - 1, remainder + b) : (quotient, remainder)
    }

    static func isValidDate(_ year: Int, _ month: Int, _ day: Int) -> Bool {
        (1...12).contains(month) && day >= 1 && day <= daysIn(month: month, year: year)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * Int64(month > 2 ? month - 3 : month + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (`civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        return (Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0), month, day)
    }
}
