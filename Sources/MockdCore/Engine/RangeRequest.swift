import Foundation

/// Byte-range requests (RFC 9110 §14): which bytes of a representation a `GET` asks for with `Range`, subject to
/// `If-Range` (§13.1.5).
///
/// Only `GET` has range semantics (§14.2: a `HEAD`, a `POST`… with `Range` gets the whole answer); only the
/// `bytes` unit is known (any other unit is ignored). A range set the grammar of §14.1.1 does not accept
/// (`bytes=5-2`, `bytes=x-`, `bytes=`) is ignored, as §14.2 allows, and the whole representation is sent.
enum RangeRequest {
    /// What a request selects of a representation.
    enum Selection: Equatable {
        /// The whole representation (no `Range`, not a `GET`, a failed `If-Range`, an ignored range set).
        case full
        /// These byte ranges, in the request's order, each clamped to the representation (first...last, 0-based,
        /// inclusive).
        case ranges([ClosedRange<Int>])
        /// None of the ranges overlaps the representation (416, §15.5.17).
        case unsatisfiable
    }

    /// More ranges than this in one request are ignored and the whole representation is sent (§14.2 lets a server
    /// ignore many small ranges: each costs a multipart header).
    static let maximumRanges = 64

    /// The selection `request` makes of a representation of `length` bytes with these validators.
    ///
    /// - Parameters:
    ///   - etag: The representation's `ETag`, for an `If-Range` entity tag (strong comparison: a weak tag on
    ///     either side never matches, §13.1.5).
    ///   - lastModified: Its `Last-Modified`, for an `If-Range` date (an exact match, §13.1.5).
    ///   - length: The representation's length in bytes; an empty one is always sent whole.
    /// - Complexity: O(length of the `Range` value).
    static func selection(for request: HTTPRequest, etag: String?, lastModified: String?, length: Int) -> Selection {
        guard request.method == "GET", length > 0, let range = request.headers["range"] else { return .full }
        if let condition = request.headers["if-range"],
            !matches(ifRange: condition.trimmingCharacters(in: .whitespaces), etag: etag, lastModified: lastModified)
        {
            return .full
        }
        return parse(range, length: length)
    }

    /// Whether `If-Range` holds: an entity tag strongly equal to `etag`, or a date equal to `lastModified`.
    static func matches(ifRange condition: String, etag: String?, lastModified: String?) -> Bool {
        if condition.hasPrefix("\"") || condition.hasPrefix("W/") {
            guard let etag = etag?.trimmingCharacters(in: .whitespaces), !condition.hasPrefix("W/"),
                !etag.hasPrefix("W/")
            else { return false }
            return condition == etag
        }
        guard let lastModified = lastModified?.trimmingCharacters(in: .whitespaces) else { return false }
        if condition == lastModified { return true }
        guard let conditionDate = DateFormats.parseIMFFixdate(condition),
            let modifiedDate = DateFormats.parseIMFFixdate(lastModified)
        else { return false }
        return conditionDate == modifiedDate
    }

    /// The selection a `Range` value (`bytes=0-99,-500`) makes of `length` (> 0) bytes.
    ///
    /// Ranges that start at or after the end are dropped (unsatisfiable); ends past the end are clamped; a suffix
    /// range `-N` is the last N bytes. When several ranges together ask for more bytes than the representation has
    /// (overlaps), the whole representation is sent instead (§14.2).
    static func parse(_ value: String, length: Int) -> Selection {
        guard let equals = value.firstIndex(of: "=") else { return .full }
        guard value[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "bytes" else { return .full }
        var ranges: [ClosedRange<Int>] = []
        var specifications = 0
        for element in value[value.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false) {
            let specification = element.trimmingCharacters(in: .whitespaces)
            if specification.isEmpty { continue }  // `1#` lists allow empty elements (RFC 9110 §5.6.1)
            specifications += 1
            guard specifications <= maximumRanges, let dash = specification.firstIndex(of: "-") else { return .full }
            let first = specification[..<dash]
            let last = specification[specification.index(after: dash)...]
            if first.isEmpty {
                guard let suffix = number(last) else { return .full }
                if suffix > 0 { ranges.append(max(0, length - suffix)...(length - 1)) }
                continue
            }
            guard let start = number(first) else { return .full }
            var end = length - 1
            if !last.isEmpty {
                guard let requestedEnd = number(last), requestedEnd >= start else { return .full }
                end = min(requestedEnd, length - 1)
            }
            if start < length { ranges.append(start...end) }
        }
        guard specifications > 0 else { return .full }
        guard !ranges.isEmpty else { return .unsatisfiable }
        if ranges.count > 1 {
            var total = 0
            for range in ranges {
                total += range.count
                if total > length { return .full }
            }
        }
        return .ranges(ranges)
    }

    /// A run of ASCII digits as a number; more digits than an `Int` holds read as `Int.max` (past any end).
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text) ?? Int.max
    }
}
