import Foundation

/// Proactive negotiation on `Accept` (RFC 9110 §12.5.1): whether a request accepts a stub's media type.
///
/// Negotiation only widens matching: the `Accept` a stub's request was recorded with always matches it (a server
/// may answer `Accept: application/vnd.github+json` with `application/json`, `text/html` with `text/plain`), and
/// where several recorded variants accept a request, the one recorded with its very `Accept` wins, then the one
/// whose type the request rates highest (`HeaderConstraint.preference(in:)`).
///
/// A recorded `Accept: application/json` must not make the stub miss curl's `Accept: */*` or an image loader's
/// `Accept: image/webp,image/*;q=0.8`: the stub answers when the request's most specific media range that covers
/// the stub's type (`type/subtype` before `type/*` before `*/*`) has a `q` above 0. No `Accept` accepts anything.
/// Media-range parameters other than `q` are not compared (clients rarely send them; a charset never breaks a
/// match). Sets that want the old string comparison say `"acceptMatching": "exact"`.
enum AcceptNegotiation {
    /// Whether `accept` (the request's `Accept` values, joined; `nil` when absent) accepts `mediaType` (a
    /// lower-cased `type/subtype`).
    static func accepts(_ accept: String?, mediaType: String) -> Bool {
        guard let accept else { return true }
        // One media range without parameters (`application/json`, curl's `*/*`), what most clients send: compared
        // on the bytes, without splitting or building `type/*` (this was a third of a matched request's own
        // instructions when done on characters).
        let isOneRange =
            accept.utf8.withContiguousStorageIfAvailable { bytes in
                !bytes.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: ";") }
            } ?? !accept.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: ";") }
        if isOneRange {
            let only = accept.trimmingWhitespace
            if only.isEmpty { return true }
            return only.caseInsensitiveEquals(mediaType) || only == "*/*" || only == "*"
                || isWildcardSubtype(only, of: mediaType)
        }
        return quality(accept, mediaType: mediaType) > 0
    }

    /// The `q` (0–1) that `accept` gives `mediaType`: that of its most specific media range covering the type
    /// (`type/subtype`, then `type/*`, then `*/*`), 0 when none does, 1 without an `Accept`. For choosing between
    /// recorded variants of one request.
    static func quality(_ accept: String?, mediaType: String) -> Double {
        guard let accept, !accept.trimmingWhitespace.isEmpty else { return 1 }
        let type = mediaType.utf8.firstIndex(of: UInt8(ascii: "/")).map { mediaType[..<$0] } ?? mediaType[...]
        let wildcardSubtype = "\(type)/*"
        var best: (specificity: Int, q: Double)?
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";")
            guard let first = parts.first else { continue }
            let name = first.trimmingWhitespace.asciiLowercased
            let specificity: Int
            if name == mediaType {
                specificity = 3
            } else if name == wildcardSubtype {
                specificity = 2
            } else if name == "*/*" || name == "*" {
                specificity = 1
            } else {
                continue
            }
            var q = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingWhitespace.asciiLowercased == "q" {
                    q = Double(pair[1].trimmingWhitespace) ?? 1
                }
            }
            if best == nil || specificity > best!.specificity { best = (specificity, q) }
        }
        return best?.q ?? 0
    }

    /// Whether `range` is `type/*` for the type of `mediaType` (`application/*` for `application/json`), in any case.
    private static func isWildcardSubtype(_ range: String, of mediaType: String) -> Bool {
        let range = range.utf8
        guard range.count >= 3, range.last == UInt8(ascii: "*") else { return false }
        let typeLength = range.count - 2
        let media = mediaType.utf8
        guard media.count > typeLength,
            range[range.index(range.startIndex, offsetBy: typeLength)] == UInt8(ascii: "/"),
            media[media.index(media.startIndex, offsetBy: typeLength)] == UInt8(ascii: "/")
        else { return false }
        return zip(range.prefix(typeLength), media.prefix(typeLength)).allSatisfy {
            asciiLowercase($0) == asciiLowercase($1)
        }
    }

    /// The media type a stub offers for negotiation: its response's `Content-Type`, else the recorded `Accept`
    /// when that names one concrete type; `nil` when neither does (the constraint then compares exactly).
    static func offeredType(contentType: String?, recordedAccept: String) -> String? {
        let essence = MediaType.essence(of: contentType)
        if !essence.isEmpty, essence.contains("/") { return essence }
        let ranges = recordedAccept.split(separator: ",")
        guard ranges.count == 1 else { return nil }
        let only = MediaType.essence(of: String(ranges[0]))
        return only.contains("/") && !only.contains("*") ? only : nil
    }
}
