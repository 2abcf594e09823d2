import Foundation

/// The date texts mockd writes and reads: RFC 3339 for the journal, HAR and `{{now}}`, IMF-fixdate for HTTP
/// headers (`Date`, `Last-Modified`, `If-Modified-Since`).
enum DateFormats {
    /// RFC 3339 UTC to the second: `2026-11-29T20:42:46Z`.
    static func rfc3339(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ",
            parts.tm_year + 1900,
            parts.tm_mon + 1,
            parts.tm_mday,
            parts.tm_hour,
            parts.tm_min,
            parts.tm_sec
        )
    }

    /// IMF-fixdate (RFC 9110 §5.6.7), e.g. `Sun, 29 Nov 2026 20:00:00 GMT`.
    static func imfFixdate(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
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

    /// RFC 3339 UTC with milliseconds.
    static func rfc3339Milliseconds(_ date: Date) -> String {
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded())
        let base = rfc3339(Date(timeIntervalSince1970: Double(milliseconds / 1000)))
        return base.dropLast() + String(format: ".%03dZ", milliseconds % 1000)
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
