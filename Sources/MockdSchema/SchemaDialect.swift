/// The JSON Schema dialect a schema is read in: which keywords exist and what they mean.
///
/// - `draft4`: JSON Schema draft 4 (draft-zyp-json-schema-04, draft-fge-json-schema-validation-00), the base of
///   OpenAPI 3.0's Schema Object: `id`, `definitions`, boolean `exclusiveMaximum`/`exclusiveMinimum`, `items`
///   as a list with `additionalItems`, `dependencies`; `$ref` replaces its siblings.
/// - `openAPI30`: draft 4 as OpenAPI 3.0.3 §4.7.24 changes it: `nullable: true` admits `null`; everything else
///   as draft 4 (`discriminator`, `readOnly`, `writeOnly`, `example`, `xml` are annotations).
/// - `draft2020_12`: JSON Schema 2020-12 (Core and Validation), OpenAPI 3.1.0's dialect: `$id`, `$anchor`,
///   `$dynamicRef`/`$dynamicAnchor`, `$defs`, `prefixItems`, `contains` with `minContains`/`maxContains`,
///   `dependentRequired`/`dependentSchemas`, `if`/`then`/`else`, `unevaluatedItems`/`unevaluatedProperties`,
///   boolean schemas, `$ref` beside other keywords.
public enum SchemaDialect: String, Sendable, Hashable, CaseIterable {
    case draft4
    case openAPI30
    case draft2020_12

    /// The dialect a `$schema` value names, or `nil` for one this validator does not know.
    ///
    /// Accepts the meta-schema URIs with or without their trailing `#` and with `http` or `https`.
    public init?(metaSchemaURI: String) {
        var text = metaSchemaURI
        if text.hasSuffix("#") { text.removeLast() }
        if text.hasPrefix("https://") { text = "http://" + text.dropFirst("https://".count) }
        switch text {
        case "http://json-schema.org/draft-04/schema", "http://json-schema.org/schema": self = .draft4
        case "http://json-schema.org/draft/2020-12/schema": self = .draft2020_12
        default: return nil
        }
    }

    /// The keyword naming a schema resource's URI.
    var identifierKeyword: String { self == .draft2020_12 ? "$id" : "id" }

    /// Whether `$ref` makes the schema's other keywords (and its `id`) be ignored (draft 4 and OpenAPI 3.0).
    var referenceReplacesSiblings: Bool { self != .draft2020_12 }
}

/// The 2020-12 vocabularies (Core §8.1.2 `$vocabulary`): a meta-schema that leaves one out turns its keywords off.
struct SchemaVocabularies: OptionSet, Hashable, Sendable {
    let rawValue: Int

    static let applicator = SchemaVocabularies(rawValue: 1 << 0)
    static let validation = SchemaVocabularies(rawValue: 1 << 1)
    static let unevaluated = SchemaVocabularies(rawValue: 1 << 2)
    static let all: SchemaVocabularies = [.applicator, .validation, .unevaluated]

    /// The vocabularies a `$vocabulary` object turns on (core, meta-data, format and content are always on or
    /// annotations only).
    init(vocabularyObject: [String: Bool]) {
        var set: SchemaVocabularies = []
        for uri in vocabularyObject.keys {
            switch uri {
            case "https://json-schema.org/draft/2020-12/vocab/applicator": set.insert(.applicator)
            case "https://json-schema.org/draft/2020-12/vocab/validation": set.insert(.validation)
            case "https://json-schema.org/draft/2020-12/vocab/unevaluated": set.insert(.unevaluated)
            default: break
            }
        }
        self = set
    }

    init(rawValue: Int) { self.rawValue = rawValue }
}
