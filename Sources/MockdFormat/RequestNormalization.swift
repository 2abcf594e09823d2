/// Rules that make volatile parts of a request irrelevant to matching: cache-busting query parameters,
/// nonces and timestamps in JSON bodies, redacted secrets.
///
/// Written as `normalize` in a mock set index (per set) and in a scenario file (per scenario). The same
/// rules run over the recorded request when `mockd import-har` writes the key and over every live request
/// before lookup, so both sides always agree. A scenario applies the union of its own rules and those of
/// every set it serves.
///
/// ```json
/// "normalize": {
///   "ignoreQuery": ["_", "timestamp", "utm_*"],
///   "queryValues": [{"name": "api_key", "placeholder": "apiKey"},
///                   {"pattern": "^[0-9]{13}$", "placeholder": "timestampMs"}],
///   "ignoreBodyFields": ["requestId", "meta.sentAt"],
///   "bodyValues": [{"name": "password", "placeholder": "secret"}]
/// }
/// ```
public struct RequestNormalization: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey, CaseIterable { case ignoreQuery, queryValues, ignoreBodyFields, bodyValues }

    /// Query parameter names left out of the key (decoded names; a trailing `*` matches a prefix).
    public var ignoreQuery: [String]?
    /// Query values replaced by `{{placeholder}}` on both sides.
    public var queryValues: [ValueRule]?
    /// JSON body fields (and form fields) left out of the body digest. A single name matches the field at
    /// any depth; a dotted path (`meta.sentAt`, `items[].id`, `*` for any key) matches from the root.
    public var ignoreBodyFields: [String]?
    /// JSON body values (strings and numbers) replaced by `"{{placeholder}}"` on both sides.
    public var bodyValues: [ValueRule]?

    /// A value rule: values of parameter/field `name` (any when absent) that match `pattern` (any when
    /// absent; an ICU regular expression searched in the value, anchor it with `^…$`) become `{{placeholder}}`.
    public struct ValueRule: Codable, Sendable, Equatable, Hashable {
        enum CodingKeys: String, CodingKey, CaseIterable { case name, pattern, placeholder }

        public var name: String?
        public var pattern: String?
        public var placeholder: String

        public init(name: String? = nil, pattern: String? = nil, placeholder: String) {
            self.name = name
            self.pattern = pattern
            self.placeholder = placeholder
        }
    }

    public init(
        ignoreQuery: [String]? = nil,
        queryValues: [ValueRule]? = nil,
        ignoreBodyFields: [String]? = nil,
        bodyValues: [ValueRule]? = nil
    ) {
        self.ignoreQuery = ignoreQuery
        self.queryValues = queryValues
        self.ignoreBodyFields = ignoreBodyFields
        self.bodyValues = bodyValues
    }

    /// Whether no rule is set.
    public var isEmpty: Bool {
        (ignoreQuery ?? []).isEmpty && (queryValues ?? []).isEmpty && (ignoreBodyFields ?? []).isEmpty
            && (bodyValues ?? []).isEmpty
    }

    /// Both rule lists together, duplicates removed, order kept (`self` first).
    public func merged(with other: RequestNormalization) -> RequestNormalization {
        func union<T: Hashable>(_ a: [T]?, _ b: [T]?) -> [T]? {
            var seen = Set<T>()
            let items = ((a ?? []) + (b ?? [])).filter { seen.insert($0).inserted }
            return items.isEmpty ? nil : items
        }
        return RequestNormalization(
            ignoreQuery: union(ignoreQuery, other.ignoreQuery),
            queryValues: union(queryValues, other.queryValues),
            ignoreBodyFields: union(ignoreBodyFields, other.ignoreBodyFields),
            bodyValues: union(bodyValues, other.bodyValues)
        )
    }
}
