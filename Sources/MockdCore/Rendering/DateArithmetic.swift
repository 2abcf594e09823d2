import Foundation

/// `offset="+1d-2h"` of a `{{now}}` placeholder: terms of a signed whole number and a unit, added in order. `ms`, `s`,
/// `m`, `h`, `d` and `w` are fixed lengths; `M` (months) and `y` (years) move the calendar date in UTC, keeping the
/// time of day, a day past the month's end held to its last day (January 31st + 1M is February 28th or 29th).
struct DateOffset: Sendable, Equatable {
    enum Unit: String, CaseIterable, Sendable {
        case milliseconds = "ms"
        case seconds = "s"
        case minutes = "m"
        case hours = "h"
        case days = "d"
        case weeks = "w"
        case months = "M"
        case years = "y"

        var milliseconds: Int64? {
            switch self {
            case .milliseconds: 1
            case .seconds: 1000
            case .minutes: 60_000
            case .hours: 3_600_000
            case .days: 86_400_000
            case .weeks: 604_800_000
            case .months, .years: nil
            }
        }
    }

    let terms: [(amount: Int64, unit: Unit)]

    static func == (lhs: DateOffset, rhs: DateOffset) -> Bool {
        lhs.terms.map(\.amount) == rhs.terms.map(\.amount) && lhs.terms.map(\.unit) == rhs.terms.map(\.unit)
    }

    /// - Throws: a message naming what is wrong, for a template problem.
    init(_ text: String) throws(TemplateProblem) {
        let problem = TemplateProblem(
            "offset '\(text)': write signed amounts with a unit, e.g. +1d, -90m, +1h30m (units ms, s, m, h, d, w, M, y)"
        )
        var terms: [(Int64, Unit)] = []
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !rest.isEmpty else { throw problem }
        var sign: Int64 = 1
        while !rest.isEmpty {
            if rest.first == "+" || rest.first == "-" {
                sign = rest.first == "-" ? -1 : 1
                rest = rest.dropFirst()
            }
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 9, let amount = Int64(digits) else { throw problem }
            rest = rest.dropFirst(digits.count)
            let unitText = rest.hasPrefix("ms") ? "ms" : String(rest.prefix(1))
            guard let unit = Unit(rawValue: unitText) else { throw problem }
            rest = rest.dropFirst(unitText.count)
            terms.append((sign * amount, unit))
        }
        self.terms = terms
    }

    /// `date` moved by every term, in order.
    func applied(to date: Date) -> Date {
        var milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        for (amount, unit) in terms {
            if let length = unit.milliseconds {
                milliseconds += amount * length
                continue
            }
            let (days, timeOfDay) = DateText.floorDivision(milliseconds, 86_400_000)
            let (year, month, day) = DateText.civil(fromDays: days)
            let totalMonths = Int64(year) * 12 + Int64(month - 1) + (unit == .years ? amount * 12 : amount)
            let (newYear, newMonthIndex) = DateText.floorDivision(totalMonths, 12)
            let newMonth = Int(newMonthIndex) + 1
            let newDay = min(day, DateText.daysIn(month: newMonth, year: Int(newYear)))
            milliseconds = DateText.daysFromCivil(Int(newYear), newMonth, newDay) * 86_400_000 + timeOfDay
        }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

/// How a `{{now}}` placeholder writes its instant: `format="…"` and `zone="…"`.
struct DateOutput: Sendable {
    enum Format: Sendable {
        /// RFC 3339 to the second: `2026-11-29T20:00:00Z`, or with the zone's offset (`…T21:00:00+01:00`).
        case iso
        /// RFC 3339 with milliseconds.
        case isoMilliseconds
        /// IMF-fixdate (RFC 9110 §5.6.7), always GMT.
        case http
        case epochSeconds
        case epochMilliseconds
        /// `2026-11-29` in the zone.
        case date
        /// A Unicode date pattern (`yyyy-MM-dd'T'HH:mm`, `EEEE d MMMM`), English names, in the zone.
        case pattern(String)
    }

    /// The names `format=` takes besides a pattern.
    static let formatNames: [String: Format] = [
        "iso": .iso, "iso-ms": .isoMilliseconds, "http": .http, "epoch": .epochSeconds, "epochMs": .epochMilliseconds,
        "date": .date,
    ]

    let format: Format
    /// `nil`: UTC.
    let zone: TimeZone?

    /// - Throws: a message for an empty pattern or a zone that is neither an offset nor an IANA name.
    init(format: String?, zone: String?) throws(TemplateProblem) {
        if let format {
            if let named = DateOutput.formatNames[format] {
                self.format = named
            } else if format.contains(where: \.isLetter) {
                self.format = .pattern(format)
            } else {
                throw TemplateProblem(
                    "format '\(format)': use iso, iso-ms, http, epoch, epochMs, date or a date pattern such as yyyy-MM-dd'T'HH:mm"
                )
            }
        } else {
            self.format = .iso
        }
        if let zone {
            guard let parsed = DateOutput.timeZone(zone) else {
                throw TemplateProblem("zone '\(zone)': use UTC, an offset (+02:00) or an IANA name (Europe/Paris)")
            }
            self.zone = parsed
        } else {
            self.zone = nil
        }
    }

    /// `UTC`, `Z`, `+02:00`, `-0530` or an IANA name (`America/New_York`).
    static func timeZone(_ text: String) -> TimeZone? {
        if text == "UTC" || text == "Z" || text == "GMT" { return TimeZone(identifier: "UTC") }
        if let sign = text.first, sign == "+" || sign == "-" {
            let digits = text.dropFirst().filter { $0 != ":" }
            guard digits.count == 4 || digits.count == 2, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let hours = Int(digits.prefix(2)), let minutes = Int(digits.count == 4 ? digits.suffix(2) : "0"),
                hours < 24, minutes < 60
            else { return nil }
            return TimeZone(secondsFromGMT: (hours * 3600 + minutes * 60) * (sign == "-" ? -1 : 1))
        }
        guard text.contains("/") else { return nil }
        return TimeZone(identifier: text)
    }

    /// Whether the text is a JSON number (`epoch`, `epochMs`).
    var isNumber: Bool {
        switch format {
        case .epochSeconds, .epochMilliseconds: true
        default: false
        }
    }

    func text(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let offset = Int64(zone?.secondsFromGMT(for: date) ?? 0)
        let zoneLayout: DateText.Zone =
            offset == 0 ? .utc("Z") : .offset(seconds: Int(offset), colon: true, minutes: true)
        switch format {
        case .iso:
            return DateText(
                milliseconds: milliseconds,
                layout: .iso(separator: "T", seconds: true, fractionDigits: 0, fractionMark: ".", zone: zoneLayout)
            ).text
        case .isoMilliseconds:
            return DateText(
                milliseconds: milliseconds,
                layout: .iso(separator: "T", seconds: true, fractionDigits: 3, fractionMark: ".", zone: zoneLayout)
            ).text
        case .http: return DateText(milliseconds: milliseconds, layout: .http(zone: "GMT")).text
        case .epochSeconds: return String(DateText.floorDivision(milliseconds, 1000).0)
        case .epochMilliseconds: return String(milliseconds)
        case .date:
            return DateText(milliseconds: milliseconds + offset * 1000, layout: .date).text
        case .pattern(let pattern):
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.calendar = Calendar(identifier: .gregorian)
            formatter.timeZone = zone ?? TimeZone(identifier: "UTC")
            formatter.dateFormat = pattern
            return formatter.string(from: date)
        }
    }
}
