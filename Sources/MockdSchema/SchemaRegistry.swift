import MockdFormat

/// A schema as evaluation meets it: the value, the base URI its references resolve against, its dialect and
/// the vocabularies its meta-schema turns on.
struct SchemaLocation: Sendable {
    var schema: JSONValue
    var base: SchemaURI
    var dialect: SchemaDialect
    var vocabularies: SchemaVocabularies
}

/// Every schema resource a validator can reach, indexed once when it is built: resources by their absolute URI
/// (`$id`, draft 4 `id`, or the URI a document was retrieved from), plain-name anchors (`$anchor`,
/// `$dynamicAnchor`, draft 4 `id: "#name"`), and which resources declare which `$dynamicAnchor`s.
///
/// Identifiers are found only where a schema can stand (the subschemas of known applicator keywords), so an
/// `$id` inside `enum`, `const` or an unknown keyword is data, as JSON Schema 2020-12 Core §9.2 and the suite
/// require. Remote documents are fetched while indexing through the `retrieve` closure, never during
/// validation, so a built registry is immutable and `Sendable`.
struct SchemaRegistry: Sendable {
    private(set) var resources: [String: SchemaLocation] = [:]
    private(set) var anchors: [String: SchemaLocation] = [:]
    private(set) var dynamicAnchors: [String: Set<String>] = [:]
    private var pendingReferences: [(uri: SchemaURI, dialect: SchemaDialect)] = []

    /// Keywords whose value is one subschema, in each dialect.
    private static let singleSchemaKeywords: [SchemaDialect: Set<String>] = [
        .draft4: ["additionalItems", "additionalProperties", "not", "items"],
        .draft2020_12: [
            "additionalProperties", "not", "items", "contains", "if", "then", "else", "propertyNames",
            "unevaluatedItems", "unevaluatedProperties",
        ],
    ]
    /// Keywords whose value is a list of subschemas.
    private static let schemaListKeywords: [SchemaDialect: Set<String>] = [
        .draft4: ["allOf", "anyOf", "oneOf", "items"],
        .draft2020_12: ["allOf", "anyOf", "oneOf", "prefixItems"],
    ]
    /// Keywords whose value is an object of subschemas.
    private static let schemaMapKeywords: [SchemaDialect: Set<String>] = [
        .draft4: ["properties", "patternProperties", "definitions", "dependencies"],
        .draft2020_12: ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"],
    ]

    /// Indexes `document` as the resource at `uri`, then every remote document its references name.
    ///
    /// - Parameters:
    ///   - retrieve: returns the JSON of a document by its absolute URI (without fragment), or `nil` when it is
    ///     unknown; references to it then fail at validation as unresolvable.
    mutating func add(
        _ document: JSONValue,
        at uri: SchemaURI,
        dialect: SchemaDialect,
        retrieve: (String) -> JSONValue?
    ) {
        index(document, base: uri.withoutFragment, dialect: dialect, vocabularies: .all, isResourceRoot: true, retrieve)
        while let pending = pendingReferences.popLast() {
            let key = pending.uri.withoutFragment.description
            guard resources[key] == nil, let remote = retrieve(key) else { continue }
            index(
                remote,
                base: pending.uri.withoutFragment,
                dialect: pending.dialect,
                vocabularies: .all,
                isResourceRoot: true,
                retrieve
            )
        }
    }

    /// The schema `uri` names: a resource, a JSON Pointer into one (RFC 6901 fragment) or a plain-name anchor.
    func location(of uri: SchemaURI) -> SchemaLocation? {
        let resourceKey = uri.withoutFragment.description
        let fragment = uri.fragment ?? ""
        guard let tokens = JSONPointer.tokens(ofFragment: fragment) else {
            return anchors[resourceKey + "#" + fragment]
        }
        guard var current = resources[resourceKey] else { return nil }
        for token in tokens {
            let next: JSONValue?
            switch current.schema {
            case .object(let members): next = members[token]
            case .array(let elements): next = Int(token).flatMap { elements.indices.contains($0) ? elements[$0] : nil }
            default: next = nil
            }
            guard let next else { return nil }
            current.schema = next
            if let base = Self.identifier(of: next, base: current.base, dialect: current.dialect) {
                current.base = base
            }
        }
        return current
    }

    /// The resource URI a schema object declares (`$id`, or draft 4 `id` without a `$ref` beside it and not a
    /// bare fragment), resolved against `base`.
    static func identifier(of schema: JSONValue, base: SchemaURI, dialect: SchemaDialect) -> SchemaURI? {
        guard case .object(let members) = schema,
            case .string(let id)? = members[dialect.identifierKeyword]
        else { return nil }
        if dialect.referenceReplacesSiblings && members["$ref"] != nil { return nil }
        if id.hasPrefix("#") { return nil }
        return base.resolving(id).withoutFragment
    }

    private mutating func index(
        _ schema: JSONValue,
        base: SchemaURI,
        dialect: SchemaDialect,
        vocabularies: SchemaVocabularies,
        isResourceRoot: Bool,
        _ retrieve: (String) -> JSONValue?
    ) {
        guard case .object(let members) = schema else {
            if isResourceRoot {
                resources[base.description] = SchemaLocation(
                    schema: schema,
                    base: base,
                    dialect: dialect,
                    vocabularies: vocabularies
                )
            }
            return
        }
        var dialect = dialect
        var vocabularies = vocabularies
        var base = base
        var isResourceRoot = isResourceRoot
        if case .string(let metaSchema)? = members["$schema"], isResourceRoot || members["$id"] != nil {
            if let known = SchemaDialect(metaSchemaURI: metaSchema) {
                dialect = dialect == .openAPI30 && known == .draft4 ? .openAPI30 : known
                vocabularies = .all
            } else if let meta = retrieve(SchemaURI(metaSchema).withoutFragment.description) {
                (dialect, vocabularies) = Self.dialect(ofMetaSchema: meta, fallback: dialect)
            }
        }
        let retrievedAt = isResourceRoot ? base : nil
        if let identified = Self.identifier(of: schema, base: base, dialect: dialect) {
            base = identified
            isResourceRoot = true
        }
        let location = SchemaLocation(schema: schema, base: base, dialect: dialect, vocabularies: vocabularies)
        if isResourceRoot { resources[base.description] = location }
        // A document is also found by the URI it was retrieved from, whatever `$id` it declares.
        if let retrievedAt, resources[retrievedAt.description] == nil { resources[retrievedAt.description] = location }
        if dialect == .draft2020_12 {
            if case .string(let anchor)? = members["$anchor"] {
                anchors[base.description + "#" + anchor] = location
            }
            if case .string(let anchor)? = members["$dynamicAnchor"] {
                anchors[base.description + "#" + anchor] = location
                dynamicAnchors[base.description, default: []].insert(anchor)
            }
        } else if case .string(let id)? = members["id"], members["$ref"] == nil {
            let resolved = base.resolving(id)
            if let fragment = resolved.fragment, !fragment.isEmpty, !fragment.hasPrefix("/") {
                anchors[resolved.withoutFragment.description + "#" + fragment] = location
            }
        }
        for keyword in ["$ref", "$dynamicRef"] {
            if case .string(let reference)? = members[keyword] {
                let target = base.resolving(reference)
                if resources[target.withoutFragment.description] == nil {
                    pendingReferences.append((target, dialect))
                }
            }
        }
        let family: SchemaDialect = dialect == .draft2020_12 ? .draft2020_12 : .draft4
        for (keyword, value) in members {
            if Self.singleSchemaKeywords[family]!.contains(keyword) {
                index(value, base: base, dialect: dialect, vocabularies: vocabularies, isResourceRoot: false, retrieve)
            }
            if Self.schemaListKeywords[family]!.contains(keyword), case .array(let list) = value {
                for element in list {
                    index(
                        element,
                        base: base,
                        dialect: dialect,
                        vocabularies: vocabularies,
                        isResourceRoot: false,
                        retrieve
                    )
                }
            }
            if Self.schemaMapKeywords[family]!.contains(keyword), case .object(let map) = value {
                for (_, element) in map {
                    index(
                        element,
                        base: base,
                        dialect: dialect,
                        vocabularies: vocabularies,
                        isResourceRoot: false,
                        retrieve
                    )
                }
            }
        }
    }

    /// The dialect and vocabularies a custom meta-schema declares (its own `$schema` and `$vocabulary`).
    private static func dialect(
        ofMetaSchema meta: JSONValue,
        fallback: SchemaDialect
    ) -> (SchemaDialect, SchemaVocabularies) {
        let dialect = meta["$schema"]?.stringValue.flatMap(SchemaDialect.init(metaSchemaURI:)) ?? fallback
        guard case .object(let vocabulary)? = meta["$vocabulary"] else { return (dialect, .all) }
        var flags: [String: Bool] = [:]
        for (uri, value) in vocabulary { if case .bool(let on) = value { flags[uri] = on } }
        return (dialect, SchemaVocabularies(vocabularyObject: flags))
    }
}
