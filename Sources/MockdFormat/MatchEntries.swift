extension ScenarioFile {
    /// Which requests an override catches. Every given part must hold; absent parts match anything.
    public struct MatchEntry: Codable, Sendable, Equatable {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case host, method, path, pathPattern, url, urlPattern, query, headers, body, graphql
        }

        /// The recorded host the request is for (`api.example.com`, `host:port`; case and the default ports 80 and 443
        /// do not matter): the host it names (`/__host/NAME/`, `X-Forwarded-Host`, `Host`), or when it names none the
        /// only host whose recordings have its method, path and query. Absent = any host.
        public var host: String?
        /// Exact method; absent = any.
        public var method: String?
        /// Exact raw path, or a template whose `{name}` segments match any one segment (`/v1/orders/{id}`).
        public var path: String?
        /// A regular expression the whole (normalised) path must match.
        public var pathPattern: String?
        /// Exact path and query (`/todo/items?status=open`): no other parameter may be present; order does not matter.
        public var url: String?
        /// A regular expression the whole path plus `?query` (as sent) must match.
        public var urlPattern: String?
        /// Query parameters that must be present with these (decoded) values, or operator objects
        /// (`{"matches": "…"}`, `{"absent": true}`…); others may be present too.
        public var query: [String: ValueMatchEntry]?
        /// Headers that must be present with these values, or operator objects (names case-insensitive).
        public var headers: [String: ValueMatchEntry]?
        /// One body condition, or an array of them that must all hold.
        public var body: BodyMatchList?
        /// The GraphQL operation the request must be: its name, type and variables.
        public var graphql: GraphQLMatchEntry?

        public init(
            method: String? = nil,
            path: String? = nil,
            query: [String: ValueMatchEntry]? = nil,
            headers: [String: ValueMatchEntry]? = nil,
            body: BodyMatchEntry? = nil,
            pathPattern: String? = nil,
            url: String? = nil,
            urlPattern: String? = nil,
            bodies: [BodyMatchEntry]? = nil,
            host: String? = nil,
            graphql: GraphQLMatchEntry? = nil
        ) {
            self.graphql = graphql
            self.host = host
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body =
                bodies.map { BodyMatchList(conditions: $0, isList: true) }
                ?? body.map { BodyMatchList(conditions: [$0], isList: false) }
            self.pathPattern = pathPattern
            self.url = url
            self.urlPattern = urlPattern
        }
    }

    /// A request-body condition: exactly one of the fields.
    public struct BodyMatchEntry: Codable, Sendable, Equatable {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case json, text, contains, jsonEquals, matches, doesNotMatch, jsonPath, absent
        }

        /// The body parses as JSON and contains these fields (objects compared as subsets, arrays and
        /// scalars exactly).
        public var json: JSONValue?
        /// The body equals this text.
        public var text: String?
        /// The body contains this text.
        public var contains: String?
        /// The body parses as JSON equal to this (same members in any order, arrays in order, numbers by value).
        public var jsonEquals: JSONValue?
        /// The body, as UTF-8 text, matches this regular expression as a whole.
        public var matches: String?
        /// The body, as UTF-8 text, does not match this regular expression as a whole.
        public var doesNotMatch: String?
        /// The body parses as JSON and this simple JSONPath (`$.user.id`, `$.items[0]`) leads to a value that is
        /// not null and not an empty array or object.
        public var jsonPath: String?
        /// `true`: the body is empty.
        public var absent: Bool?

        public init(
            json: JSONValue? = nil,
            text: String? = nil,
            contains: String? = nil,
            jsonEquals: JSONValue? = nil,
            matches: String? = nil,
            doesNotMatch: String? = nil,
            jsonPath: String? = nil,
            absent: Bool? = nil
        ) {
            self.json = json
            self.text = text
            self.contains = contains
            self.jsonEquals = jsonEquals
            self.matches = matches
            self.doesNotMatch = doesNotMatch
            self.jsonPath = jsonPath
            self.absent = absent
        }
    }

    /// `match.body`: one condition object, or an array of them that must all hold.
    public struct BodyMatchList: Codable, Sendable, Equatable {
        public var conditions: [BodyMatchEntry]
        /// Whether it was written as an array (and is written back as one).
        public var isList: Bool

        public init(conditions: [BodyMatchEntry], isList: Bool) {
            self.conditions = conditions
            self.isList = isList
        }

        private struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        public init(from decoder: any Decoder) throws {
            if (try? decoder.container(keyedBy: AnyKey.self)) != nil {
                conditions = [try BodyMatchEntry(from: decoder)]
                isList = false
            } else {
                conditions = try decoder.singleValueContainer().decode([BodyMatchEntry].self)
                isList = true
            }
        }

        public func encode(to encoder: any Encoder) throws {
            if isList || conditions.count != 1 {
                var container = encoder.singleValueContainer()
                try container.encode(conditions)
            } else {
                try conditions[0].encode(to: encoder)
            }
        }
    }
}

/// A query or header condition in an override's `match`: a plain string (the value, compared as before) or an
/// operator object with exactly one of `equalTo` (whole value; `caseInsensitive: true` to ignore case),
/// `matches` / `doesNotMatch` (regex on the whole value), `contains`, `absent` (`true`: must be absent,
/// `false`: must be present).
public struct ValueMatchEntry: Codable, Sendable, Equatable, ExpressibleByStringLiteral {
    /// The plain-string form.
    public var plain: String?
    public var equalTo: String?
    public var caseInsensitive: Bool?
    public var matches: String?
    public var doesNotMatch: String?
    public var contains: String?
    public var absent: Bool?

    public init(
        plain: String? = nil,
        equalTo: String? = nil,
        caseInsensitive: Bool? = nil,
        matches: String? = nil,
        doesNotMatch: String? = nil,
        contains: String? = nil,
        absent: Bool? = nil
    ) {
        self.plain = plain
        self.equalTo = equalTo
        self.caseInsensitive = caseInsensitive
        self.matches = matches
        self.doesNotMatch = doesNotMatch
        self.contains = contains
        self.absent = absent
    }

    public init(stringLiteral value: String) {
        self.init(plain: value)
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case equalTo, caseInsensitive, matches, doesNotMatch, contains, absent
    }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            self.init(plain: text)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            equalTo: try container.decodeIfPresent(String.self, forKey: .equalTo),
            caseInsensitive: try container.decodeIfPresent(Bool.self, forKey: .caseInsensitive),
            matches: try container.decodeIfPresent(String.self, forKey: .matches),
            doesNotMatch: try container.decodeIfPresent(String.self, forKey: .doesNotMatch),
            contains: try container.decodeIfPresent(String.self, forKey: .contains),
            absent: try container.decodeIfPresent(Bool.self, forKey: .absent)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        if let plain {
            var single = encoder.singleValueContainer()
            try single.encode(plain)
            return
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(equalTo, forKey: .equalTo)
        try container.encodeIfPresent(caseInsensitive, forKey: .caseInsensitive)
        try container.encodeIfPresent(matches, forKey: .matches)
        try container.encodeIfPresent(doesNotMatch, forKey: .doesNotMatch)
        try container.encodeIfPresent(contains, forKey: .contains)
        try container.encodeIfPresent(absent, forKey: .absent)
    }
}
