public import Foundation

/// Turns a request body into the canonical bytes that matching compares.
///
/// - JSON (`application/json`, `*+json`): parsed and re-serialised with sorted keys and no
///   insignificant whitespace, so key order and formatting never break a match.
/// - `application/x-www-form-urlencoded`: pairs sorted by name like a query string (a repeated name's values
///   in the order sent).
/// - `multipart/form-data`: the random boundary replaced by a fixed one.
/// - Anything else, or JSON that does not parse: the bytes as they are.
public enum BodyCanonicalizer {
    /// - Parameters:
    ///   - body: The raw body bytes.
    ///   - contentType: The request's `Content-Type` value, if any.
    ///   - normalizer: Body rules (ignored fields, value placeholders) applied to JSON and form bodies.
    /// - Returns: The canonical bytes.
    /// - Complexity: O(n) in the body size (plus sorting of JSON keys and form pairs).
    public static func canonicalize(_ body: Data, contentType: String?, normalizer: RequestNormalizer = .none) -> Data {
        if body.isEmpty { return body }
        let mediaType = MediaType.essence(of: contentType)
        if MediaType.isJSON(mediaType) {
            return canonicalJSON(body, normalizer: normalizer) ?? body
        }
        if mediaType == "application/x-www-form-urlencoded" {
            return Data(canonicalForm(String(decoding: body, as: UTF8.self), normalizer: normalizer).utf8)
        }
        if mediaType.hasPrefix("multipart/"),
            let boundary = multipartBoundary(body) ?? MediaType.parameter("boundary", in: contentType),
            !boundary.isEmpty
        {
            let text = String(decoding: body, as: UTF8.self)
            return Data(text.replacingOccurrences(of: boundary, with: "mockd-boundary").utf8)
        }
        return body
    }

    /// A form body's pairs sorted like a query, after the body rules (form fields are matched by name).
    static func canonicalForm(_ text: String, normalizer: RequestNormalizer) -> String {
        guard normalizer.hasBodyRules else { return RequestKey.normalizeQuery(text) }
        var pairs: [(name: String, value: String)] = []
        for (name, value) in RequestKey.queryPairs(text) {
            let decodedName = String(decoding: URLEncoding.decode(name.utf8, plusIsSpace: false), as: UTF8.self)
            if normalizer.ignoresFormField(decodedName) { continue }
            let decodedValue = String(decoding: URLEncoding.decode(value.utf8, plusIsSpace: false), as: UTF8.self)
            let replaced = normalizer.formValue(name: decodedName, value: decodedValue)
            pairs.append((name, replaced == decodedValue ? value : URLEncoding.encodeComponent(Array(replaced.utf8))))
        }
        return RequestKey.sortedByName(pairs).map { $0.value.isEmpty ? $0.name : "\($0.name)=\($0.value)" }.joined(
            separator: "&"
        )
    }

    /// The boundary a multipart body actually uses: its first line is `--boundary` (RFC 2046 §5.1.1). Taken
    /// from the body rather than the `Content-Type` parameter, so a recorded body whose header lost the
    /// parameter still compares equal.
    static func multipartBoundary(_ body: Data) -> String? {
        guard body.starts(with: [0x2D, 0x2D]) else { return nil }
        let lineEnd = body.firstIndex(where: { $0 == 0x0D || $0 == 0x0A }) ?? body.endIndex
        let boundary = body[body.index(body.startIndex, offsetBy: 2)..<lineEnd]
        guard !boundary.isEmpty, boundary.count <= 200 else { return nil }
        return String(data: Data(boundary), encoding: .utf8)
    }

    /// Compact JSON with sorted keys and every number in its exact canonical decimal form (`ExactJSONNumbers`:
    /// `275` = `275.00` = `2.75e2`), or `nil` when `body` is not JSON.
    public static func canonicalJSON(_ body: Data, normalizer: RequestNormalizer = .none) -> Data? {
        guard let marked = ExactJSONNumbers.markingNumbers(body),
            var object = try? JSONObjectReader.jsonObject(with: marked, options: [.fragmentsAllowed])
        else {
            return nil
        }
        if normalizer.hasBodyRules { object = normalizer.normalizeJSON(object) }
        return (CanonicalJSONWriter.data(object) ?? foundationJSON(object)).map(ExactJSONNumbers.unmarkingNumbers)
    }

    /// `object` as `JSONSerialization` writes it with sorted keys: what `CanonicalJSONWriter` writes faster, and the
    /// writer for what it does not know.
    static func foundationJSON(_ object: Any) -> Data? {
        try? JSONSerialization.data(
            withJSONObject: object,
            options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]
        )
    }
}

/// Media type helpers (RFC 9110 §8.3.1).
public enum MediaType {
    /// The lower-cased `type/subtype` of a `Content-Type` value, without parameters; `""` when absent.
    public static func essence(of contentType: String?) -> String {
        guard let contentType else { return "" }
        // By byte: a `Character` search costs ~300 instructions a character, and this runs several times an entry.
        let end = contentType.utf8.firstIndex(of: UInt8(ascii: ";")) ?? contentType.endIndex
        return contentType[..<end].trimmingWhitespace.asciiLowercased
    }

    /// Whether a media type essence denotes JSON (`application/json` or a `+json` suffix).
    public static func isJSON(_ essence: String) -> Bool {
        essence == "application/json" || essence.hasSuffix("+json") || essence == "text/json"
    }

    /// The value of parameter `name` in a `Content-Type` value, quotes removed.
    public static func parameter(_ name: String, in contentType: String?) -> String? {
        guard let contentType else { return nil }
        for part in contentType.split(separator: ";").dropFirst() {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2,
                String(pieces[0]).trimmingWhitespace.caseInsensitiveEquals(name)
            else { continue }
            var value = pieces[1].trimmingWhitespace
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            return value
        }
        return nil
    }
}
