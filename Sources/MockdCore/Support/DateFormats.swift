import Foundation

/// The date texts mockd writes and reads: RFC 3339 for the journal, HAR and `{{now}}`, IMF-fixdate for HTTP
/// headers (`Date`, `Last-Modified`, `If-Modified-Since`).
enum DateFormats {
    /// RFC 3339 UTC to the second: `2026-11-29T20:42:46Z`.
    static func rfc3339(_ date: Date) -> String {
        let parts = utcParts(of: time_t(date.timeIntervalSince1970))
        return fixedWidth(parts, milliseconds: nil) ?? formatted(parts, milliseconds: nil)
    }

    /// IMF-fixdate (RFC 9110 §5.6.7), e.g. `Sun, 29 Nov 2026 20:00:00 GMT`.
    static func imfFixdate(_ date: Date) -> String {
        let parts = utcParts(of: time_t(date.timeIntervalSince1970))
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return String(
            format: "%@, %02d %@ %04d %02d:%02d:%02d GMT",
            days[Int(parts.tm_wday)],
            parts.tm_mday,
            months[Int(parts.tm_mon)],
            parts.tm_year + 1900,
            parts.tm_hour,
            parts.tm_min,
            parts.tm_sec
        )
    }

    /// RFC 3339 UTC with milliseconds: `2026-11-29T20:42:46.042Z`.
    static func rfc3339Milliseconds(_ date: Date) -> String {
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded())
        let parts = utcParts(of: time_t(milliseconds / 1000))
        if milliseconds >= 0, let text = fixedWidth(parts, milliseconds: milliseconds % 1000) { return text }
        return formatted(parts, milliseconds: milliseconds % 1000)
    }

    /// `gmtime_r`'s fields of `time` (seconds since 1970).
    static func utcParts(of time: time_t) -> tm {
        var time = time
        var parts = tm()
        gmtime_r(&time, &parts)
        return parts
    }

    /// The RFC 3339 text of `parts` through `String(format:)`, for any year (`10000-01-01T00:00:00Z`) and a negative
    /// `milliseconds` (`.-500Z`, as mockd always wrote it).
    static func formatted(_ parts: tm, milliseconds: Int?) -> String {
        let base = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ",
            parts.tm_year + 1900,
            parts.tm_mon + 1,
            parts.tm_mday,
            parts.tm_hour,
            parts.tm_min,
            parts.tm_sec
        )
        guard let milliseconds else { return base }
        return base.dropLast() + String(format: ".%03dZ", milliseconds)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.mmm]Z` written digit by digit, the bytes `formatted` gives (which cost ~3 µs a
    /// call: import-har writes one per recorded response); `nil` for a year outside 0–9999, left to `formatted`.
    private static func fixedWidth(_ parts: tm, milliseconds: Int?) -> String? {
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func append(_ value: Int, width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        append(year, width: 4)
        bytes.append(UInt8(ascii: "-"))
        append(Int(parts.tm_mon) + 1, width: 2)
        bytes.append(UInt8(ascii: "-"))
        append(Int(parts.tm_mday), width: 2)
        bytes.append(UInt8(ascii: "T"))
        append(Int(parts.tm_hour), width: 2)
        bytes.append(UInt8(ascii: ":"))
        append(Int(parts.tm_min), width: 2)
        bytes.append(UInt8(ascii: ":"))
        append(Int(parts.tm_sec), width: 2)
        if let milliseconds {
            bytes.append(UInt8(ascii: "."))
            append(milliseconds, width: 3)
        }
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7) as a date; `nil` for any other text.
    static func parseIMFFixdate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
