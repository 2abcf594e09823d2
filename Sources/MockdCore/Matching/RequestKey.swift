import Foundation

/// The hash-map key of a request: method + normalised path + normalised query.
///
/// Both sides of a match (a recorded HAR entry or stub file, and a live request) go through the same
/// normalisation, in this one place:
/// - path: RFC 3986 §6.2.2 normalisation without decoding reserved characters — escapes of unreserved
///   characters are decoded (`%41` → `A`), all other escapes use upper-case hex, and bytes that may not
///   appear in a path (space, non-ASCII, `{`…) are escaped. `%2F` therefore stays distinct from `/`.
/// - query: split on `&`, each name and value decoded (`+` and `%20` are both a space), re-encoded with
///   only unreserved characters literal, then sorted by name only, keeping the order of a repeated name's
///   values (`ids=10&ids=20` and `ids=20&ids=10` are different requests: many APIs read them as lists);
///   `a` equals `a=`.
/// - host: empty for sets recorded from one host; the lower-cased `host[:port]` in sets that keep several
///   hosts apart (see `HostRouting`).
/// - `RequestNormalization` rules (ignored parameters, value placeholders) run on the decoded query pairs.
public struct RequestKey: Hashable, Sendable, CustomStringConvertible {
    public let method: String
    public let path: String
    public let query: String
    public let host: String

    /// Creates a key from raw (as sent or as recorded) path and query text.
    public init<P: StringProtocol, Q: StringProtocol>(
        method: String,
        rawPath: P,
        rawQuery: Q,
        host: String = "",
        normalizer: RequestNormalizer = .none
    ) {
        self.method = method
        self.path = RequestKey.normalizePath(rawPath)
        self.query = RequestKey.normalizeQuery(rawQuery, normalizer: normalizer)
        self.host = host
    }

    /// This key after `normalizer` (keys loaded from an index are re-keyed under a scenario's rules).
    public func normalized(by normalizer: RequestNormalizer) -> RequestKey {
        normalizer.isEmpty
            ? self : RequestKey(method: method, rawPath: path, rawQuery: query, host: host, normalizer: normalizer)
    }

    /// The same key for another host (`""` for any).
    public func with(host: String) -> RequestKey {
        RequestKey(method: method, normalizedPath: path, normalizedQuery: query, host: host)
    }

    /// Creates the key of a live request, its query under `normalizer`'s rules.
    public init(_ request: HTTPRequest, normalizer: RequestNormalizer = .none) {
        // The normalizer edits queries only: a target without one is keyed alike under every rule set.
        self =
            RequestKey(method: request.method, canonicalTarget: request.target)
            ?? RequestKey(
                method: request.method,
                rawPath: request.path,
                rawQuery: request.query,
                normalizer: normalizer
            )
    }

    /// The key of a request-target that is its own canonical path: unreserved characters and path delimiters
    /// only, so no query, fragment or escape (most requests). The target is taken as the path as is, which
    /// is what slicing off the path and normalising it would give, without the slice or a new string.
    /// - Returns: `nil` for any other target (the general initialiser handles it).
    private init?(method: String, canonicalTarget target: String) {
        let isCanonical =
            target.utf8.withContiguousStorageIfAvailable { !$0.isEmpty && $0.allSatisfy(RequestKey.isLiteralPathByte) }
            ?? false
        guard isCanonical else { return nil }
        self.init(method: method, normalizedPath: target, normalizedQuery: "", host: "")
    }

    /// The same key for another method (used to answer `HEAD` from a `GET` stub).
    public func with(method: String) -> RequestKey {
        RequestKey(method: method, normalizedPath: path, normalizedQuery: query, host: host)
    }

    /// The same key without its query, or with another canonical one.
    func with(query: String) -> RequestKey {
        RequestKey(method: method, normalizedPath: path, normalizedQuery: query, host: host)
    }

    /// Calls `body` with the UTF-8 bytes of the method, path, query and host.
    func withUTF8<Result>(
        _ body: (
            _ method: UnsafeRawBufferPointer, _ path: UnsafeRawBufferPointer, _ query: UnsafeRawBufferPointer,
            _ host: UnsafeRawBufferPointer
        ) throws -> Result
    ) rethrows -> Result {
        var (method, path, query, host) = (method, path, query, host)
        return try method.withUTF8 { method in
            try path.withUTF8 { path in
                try query.withUTF8 { query in
                    try host.withUTF8 { host in
                        try body(.init(method), .init(path), .init(query), .init(host))
                    }
                }
            }
        }
    }

    init(method: String, normalizedPath: String, normalizedQuery: String, host: String) {
        self.method = method
        self.path = normalizedPath
        self.query = normalizedQuery
        self.host = host
    }

    /// `GET /v1/items?a=1`, or `GET //api.example.com/v1/items` for a host-keyed stub.
    public var description: String {
        let target = (host.isEmpty ? "" : "//\(host)") + path
        return query.isEmpty ? "\(method) \(target)" : "\(method) \(target)?\(query)"
    }

    /// The query as written in index files: canonical, but placeholders spelt `{{name}}` rather than escaped.
    public var readableQuery: String {
        query.replacingOccurrences(of: "%7B%7B", with: "{{").replacingOccurrences(of: "%7D%7D", with: "}}")
    }

    /// Whether `byte` stands for itself in a canonical path: unreserved, or a path delimiter (RFC 3986 §3.3).
    @inline(__always)
    static func isLiteralPathByte(_ byte: UInt8) -> Bool {
        URLEncoding.isUnreserved(byte) || URLEncoding.isPathDelimiter(byte)
    }

    /// The canonical form of a raw path; an empty path becomes `/`.
    public static func normalizePath<P: StringProtocol>(_ rawPath: P) -> String {
        if rawPath.isEmpty { return "/" }
        // Fast path (almost every request): nothing to rewrite, no byte array needed; scanned in place as a buffer
        // when the text is contiguous, never through the generic UTF-8 view.
        let literal =
            rawPath.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(RequestKey.isLiteralPathByte) }
            ?? rawPath.utf8.allSatisfy(RequestKey.isLiteralPathByte)
        if literal {
            return String(rawPath)
        }
        let bytes = Array(rawPath.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = URLEncoding.hexValue(bytes[index + 1]), let low = URLEncoding.hexValue(bytes[index + 2])
            {
                let decoded = high << 4 | low
                if URLEncoding.isUnreserved(decoded) {
                    output.append(decoded)
                } else {
                    URLEncoding.appendEscaped(decoded, to: &output)
                }
                index += 3
                continue
            }
            if URLEncoding.isUnreserved(byte) || URLEncoding.isPathDelimiter(byte) {
                output.append(byte)
            } else {
                URLEncoding.appendEscaped(byte, to: &output)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The canonical form of a raw query string (without the leading `?`).
    public static func normalizeQuery<Q: StringProtocol>(_ rawQuery: Q, normalizer: RequestNormalizer = .none) -> String
    {
        if rawQuery.isEmpty { return "" }
        if normalizer.isEmpty, isCanonical(rawQuery.utf8) { return String(rawQuery) }
        let pairs = queryPairs(rawQuery, normalizer: normalizer)
        return pairs.map { $0.value.isEmpty ? $0.name : "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// The query's pairs, each name and value in canonical encoding, sorted by name, a repeated name's values in
    /// the order sent (a stable sort).
    public static func queryPairs<Q: StringProtocol>(
        _ rawQuery: Q,
        normalizer: RequestNormalizer = .none
    ) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for piece in rawQuery.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let rawName = equals.map { piece[..<$0] } ?? piece[...]
            let rawValue = equals.map { piece[piece.index(after: $0)...] } ?? piece[piece.endIndex...]
            let decodedName = URLEncoding.decode(rawName, plusIsSpace: true)
            var decodedValue = URLEncoding.decode(rawValue, plusIsSpace: true)
            if !normalizer.isEmpty {
                let nameText = String(decoding: decodedName, as: UTF8.self)
                if normalizer.ignoresQuery(nameText) { continue }
                let valueText = String(decoding: decodedValue, as: UTF8.self)
                let replaced = normalizer.queryValue(name: nameText, value: valueText)
                if replaced != valueText { decodedValue = Array(replaced.utf8) }
            }
            pairs.append((URLEncoding.encodeComponent(decodedName), URLEncoding.encodeComponent(decodedValue)))
        }
        return RequestKey.sortedByName(pairs)
    }

    /// Whether `query` is already in the form `normalizeQuery` gives (most recorded and sent queries are): pairs
    /// `name=value` or `name` of unreserved characters only (RFC 3986 §2.3: nothing to decode or encode), no empty
    /// piece or empty value, names in order. Checked on the bytes, it spares a start with 100,000 stubs the
    /// decoding, re-encoding and sorting of every query (14% of its instructions), and a request the same.
    static func isCanonical<Bytes: Collection<UInt8>>(_ query: Bytes) -> Bool {
        var previousName: Bytes.SubSequence?
        var nameStart = query.startIndex
        var equals: Bytes.Index?
        var index = query.startIndex
        func pieceEnds(at end: Bytes.Index) -> Bool {
            // An empty piece (`a&&b`), an empty name (`=b`) or an empty value (`a=`) is rewritten.
            guard nameStart < end else { return false }
            let name: Bytes.SubSequence
            if let equals {
                guard equals > nameStart, query.index(after: equals) < end else { return false }
                name = query[nameStart..<equals]
            } else {
                name = query[nameStart..<end]
            }
            if let previousName, name.lexicographicallyPrecedes(previousName) { return false }
            previousName = name
            return true
        }
        while index < query.endIndex {
            let byte = query[index]
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                break
            case UInt8(ascii: "="):
                guard equals == nil else { return false }
                equals = index
            case UInt8(ascii: "&"):
                guard pieceEnds(at: index) else { return false }
                nameStart = query.index(after: index)
                equals = nil
            default:
                return false
            }
            index = query.index(after: index)
        }
        return pieceEnds(at: query.endIndex)
    }

    /// `pairs` sorted by name; pairs with the same name keep their order.
    static func sortedByName(_ pairs: [(name: String, value: String)]) -> [(name: String, value: String)] {
        pairs.enumerated().sorted {
            $0.element.name != $1.element.name ? $0.element.name < $1.element.name : $0.offset < $1.offset
        }
        .map(\.element)
    }
}
