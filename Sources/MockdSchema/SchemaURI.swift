internal import Foundation
internal import MockdFormat

/// A URI reference split into its RFC 3986 §3 components, resolved against a base as RFC 3986 §5.2 says.
///
/// Schema identifiers (`$id`, `id`, `$ref`, `$dynamicRef`) are URI references; the validator keeps every base URI
/// as an absolute `SchemaURI` and compares them by their text. Percent-encoding is kept as written (no
/// normalisation beyond RFC 3986 §5.2.4's dot segments), which is what the JSON Schema Test Suite expects.
struct SchemaURI: Hashable, Sendable, CustomStringConvertible {
    var scheme: String?
    var authority: String?
    var path: String
    var query: String?
    var fragment: String?

    /// Splits `text` with RFC 3986 Appendix B's regular expression, by hand.
    init(_ text: String) {
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let mark = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        if let colon = rest.firstIndex(of: ":"), colon != rest.startIndex,
            rest[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }),
            !rest[..<colon].contains("/")
        {
            scheme = String(rest[..<colon])
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            let afterSlashes = rest.dropFirst(2)
            let end = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
            authority = String(afterSlashes[..<end])
            rest = afterSlashes[end...]
        }
        path = String(rest)
    }

    private init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// The URI without its fragment: the identifier of the schema resource it names.
    var withoutFragment: SchemaURI {
        SchemaURI(scheme: scheme, authority: authority, path: path, query: query, fragment: nil)
    }

    /// `reference` resolved against `self` (RFC 3986 §5.2.2, strict).
    func resolving(_ reference: String) -> SchemaURI {
        let ref = SchemaURI(reference)
        var target = SchemaURI(scheme: nil, authority: nil, path: "", query: nil, fragment: ref.fragment)
        if let refScheme = ref.scheme {
            target.scheme = refScheme
            target.authority = ref.authority
            target.path = Self.removingDotSegments(ref.path)
            target.query = ref.query
        } else {
            target.scheme = scheme
            if ref.authority != nil {
                target.authority = ref.authority
                target.path = Self.removingDotSegments(ref.path)
                target.query = ref.query
            } else {
                target.authority = authority
                if ref.path.isEmpty {
                    target.path = path
                    target.query = ref.query ?? query
                } else {
                    if ref.path.hasPrefix("/") {
                        target.path = Self.removingDotSegments(ref.path)
                    } else {
                        target.path = Self.removingDotSegments(merged(ref.path))
                    }
                    target.query = ref.query
                }
            }
        }
        return target
    }

    /// RFC 3986 §5.2.3.
    private func merged(_ referencePath: String) -> String {
        if authority != nil && path.isEmpty { return "/" + referencePath }
        guard let slash = path.lastIndex(of: "/") else { return referencePath }
        return String(path[...slash]) + referencePath
    }

    /// RFC 3986 §5.2.4.
    static func removingDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var input = Substring(path)
        var output: [Substring] = []
        let absolute = input.hasPrefix("/")
        if absolute { input = input.dropFirst() }
        let segments = input.split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            if segment == "." {
                if isLast { output.append("") }
            } else if segment == ".." {
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            } else {
                output.append(segment)
            }
        }
        return (absolute ? "/" : "") + output.joined(separator: "/")
    }

    var description: String {
        var text = ""
        if let scheme { text += scheme + ":" }
        if let authority { text += "//" + authority }
        text += path
        if let query { text += "?" + query }
        if let fragment { text += "#" + fragment }
        return text
    }
}

/// RFC 6901 JSON Pointers, as URI fragments (`#/properties/a~1b`) and as the paths of reported violations.
enum JSONPointer {
    /// The reference tokens of `fragment` (already without `#`), percent-decoded (RFC 6901 §6), `~1` → `/`,
    /// `~0` → `~`; `nil` when the fragment is not a pointer (a plain-name anchor).
    static func tokens(ofFragment fragment: String) -> [String]? {
        let decoded = fragment.removingPercentEncodingSafely
        if decoded.isEmpty { return [] }
        guard decoded.hasPrefix("/") else { return nil }
        return decoded.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(
            JSONPointerToken.unescaped
        )
    }

    /// `token` escaped for a pointer (`~` → `~0`, `/` → `~1`).
    static func escape(_ token: String) -> String {
        token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}

extension String {
    /// Percent-decoding that leaves malformed escapes as written.
    fileprivate var removingPercentEncodingSafely: String {
        guard contains("%") else { return self }
        var bytes: [UInt8] = []
        var utf8 = Array(self.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
