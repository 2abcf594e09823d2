public import MockdFormat

/// Keywords a type adds to the JSON Schema its decoding shows: units, ranges, formats, descriptions.
public protocol ControlSchemaNotes {
    /// Keywords merged into each property's schema, by property name: `["count": ["minimum": 0]]`.
    static var propertyNotes: [String: JSONValue] { get }
    /// Keywords merged into the type's own schema: a `description`, `additionalProperties`, a `oneOf`.
    static var typeNotes: JSONValue { get }
}

extension ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] { [:] }
    public static var typeNotes: JSONValue { [:] }
}

/// A type whose schema is given rather than derived by decoding: any JSON value, a stub in the scenario override
/// format.
public protocol ControlSchemaDescribed {
    static var controlSchema: JSONValue { get }
    /// Any value of the type: what the probe hands to the type decoding around it.
    static var schemaPlaceholder: Self { get }
}

/// A closed set of strings: `{"type": "string", "enum": [...]}`.
public protocol ControlSchemaEnum: CaseIterable, RawRepresentable where RawValue == String {}

extension ControlSchemaEnum {
    fileprivate static var probeSchema: JSONValue {
        ["type": "string", "enum": .array(allCases.map { .string($0.rawValue) })]
    }
    fileprivate static var probePlaceholder: Any { allCases.first! }
}

/// What decoding the empty dictionary cannot show: the schema of its values.
private protocol ProbedDictionary {
    static func valueSchema(_ probe: SchemaProbe) throws -> JSONValue
    static var probePlaceholder: Any { get }
}

extension Dictionary: ProbedDictionary where Key == String, Value: Decodable {
    fileprivate static func valueSchema(_ probe: SchemaProbe) throws -> JSONValue {
        try probe.describe(Value.self).schema
    }
    fileprivate static var probePlaceholder: Any { [String: Value]() }
}

/// Derives the JSON Schema (2020-12, the dialect of OpenAPI 3.1) of a `Decodable` type by decoding it once with a
/// decoder that writes down what it is asked for: each key (required when read with `decode`, optional and nullable
/// when read with `decodeIfPresent`), each value's type, arrays, dictionaries, nested types.
///
/// So the schema comes from the very types the daemon encodes and the client decodes, and cannot drift from them. A
/// struct read as an object becomes a named component (`components`, referenced with `$ref`); anything whose
/// decoding tries alternatives says its schema itself (`ControlSchemaDescribed`).
public final class SchemaProbe {
    /// Named object schemas, by component name (`JournalEntry`, `NearMissDifference`).
    public private(set) var components: [String: JSONValue] = [:]
    private var placeholders: [ObjectIdentifier: Any] = [:]
    private var inProgress: Set<String> = []
    /// Where components are referenced from: `#/components/schemas/` (OpenAPI) or `#/$defs/` (one JSON Schema).
    let referencePrefix: String

    public init(referencePrefix: String = "#/components/schemas/") {
        self.referencePrefix = referencePrefix
    }

    /// The schema of `type`: a `$ref` to its component for a struct, the schema itself for anything else.
    /// - Throws: `DecodingError` when the type's decoding refuses the probe's placeholder values (a type that
    ///   validates what it reads, or tries alternatives: it must be `ControlSchemaDescribed`).
    public func schema(for type: any Decodable.Type) throws -> JSONValue {
        try describe(type).schema
    }

    /// The component name of a type: its name with the enclosing types' (`JournalHAR.Entry` → `JournalHAREntry`).
    public static func componentName(_ type: Any.Type) -> String {
        let full = String(reflecting: type)
        let local = full.split(separator: ".").dropFirst().joined()
        return local.isEmpty ? full : local
    }

    func describe<T: Decodable>(_ type: T.Type) throws -> (schema: JSONValue, value: T) {
        if let described = T.self as? any ControlSchemaDescribed.Type {
            return (described.controlSchema, described.schemaPlaceholder as! T)
        }
        if let closed = T.self as? any ControlSchemaEnum.Type {
            return (closed.probeSchema, closed.probePlaceholder as! T)
        }
        if let dictionary = T.self as? any ProbedDictionary.Type {
            return (
                ["type": "object", "additionalProperties": try dictionary.valueSchema(self)],
                dictionary.probePlaceholder as! T
            )
        }
        if let primitive = Self.primitive(T.self) { return (primitive.schema, primitive.value as! T) }
        let name = Self.componentName(T.self)
        if components[name] != nil, let value = placeholders[ObjectIdentifier(T.self)] as? T {
            return (reference(name), value)
        }
        guard inProgress.insert(name).inserted else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "\(name) contains itself: make it ControlSchemaDescribed")
            )
        }
        defer { inProgress.remove(name) }
        let decoder = ProbeDecoder(probe: self)
        let value = try T(from: decoder)
        var schema = decoder.shape.schema
        if let notes = T.self as? any ControlSchemaNotes.Type {
            schema = Self.merging(schema, notes.typeNotes)
            if case .object(var properties)? = schema["properties"] {
                for (property, extra) in notes.propertyNotes {
                    guard let current = properties[property] else { continue }
                    properties[property] = Self.merging(current, extra)
                }
                schema = Self.merging(schema, ["properties": .object(properties)])
            }
        }
        guard decoder.shape.kind == .object else { return (schema, value) }
        components[name] = schema
        placeholders[ObjectIdentifier(T.self)] = value
        return (reference(name), value)
    }

    private func reference(_ name: String) -> JSONValue {
        ["$ref": .string(referencePrefix + name)]
    }

    /// `schema` with the members of `extra` set (objects merged one level).
    static func merging(_ schema: JSONValue, _ extra: JSONValue) -> JSONValue {
        guard case .object(var members) = schema, case .object(let added) = extra else { return schema }
        for (key, value) in added { members[key] = value }
        return .object(members)
    }

    /// `schema` that also admits `null`.
    static func nullable(_ schema: JSONValue) -> JSONValue {
        guard case .object(var members) = schema, !members.isEmpty else { return schema }
        if members["$ref"] != nil || members["oneOf"] != nil || members["anyOf"] != nil {
            return ["anyOf": [schema, ["type": "null"]]]
        }
        switch members["type"] {
        case .string(let type)?: members["type"] = [.string(type), "null"]
        case .array(let types)? where !types.contains("null"): members["type"] = .array(types + ["null"])
        default: break
        }
        if case .array(let values)? = members["enum"], !values.contains(.null) {
            members["enum"] = .array(values + [.null])
        }
        return .object(members)
    }

    private static func primitive(_ type: Any.Type) -> (schema: JSONValue, value: Any)? {
        switch type {
        case is String.Type: return (["type": "string"], "")
        case is Bool.Type: return (["type": "boolean"], false)
        case is Double.Type: return (["type": "number"], 0.0)
        case is Float.Type: return (["type": "number"], Float(0))
        case is Int.Type: return (["type": "integer"], 0)
        case is Int64.Type: return (["type": "integer"], Int64(0))
        case is Int32.Type: return (["type": "integer"], Int32(0))
        case is UInt64.Type: return (["type": "integer", "minimum": 0], UInt64(0))
        case is UInt.Type: return (["type": "integer", "minimum": 0], UInt(0))
        default: return nil
        }
    }
}

/// What one decode call asked for.
private struct ProbeShape {
    enum Kind { case unknown, object, array, single }
    var kind = Kind.unknown
    var properties: [(name: String, schema: JSONValue)] = []
    var optional: Set<String> = []
    var items: JSONValue = [:]
    var single: JSONValue = [:]
    var nullable = false

    mutating func set(_ name: String, _ schema: JSONValue) {
        if let index = properties.firstIndex(where: { $0.name == name }) {
            properties[index].schema = schema
        } else {
            properties.append((name, schema))
        }
    }

    var schema: JSONValue {
        let plain: JSONValue
        switch kind {
        case .unknown: plain = [:]
        case .single: plain = single
        case .array: plain = ["type": "array", "items": items]
        case .object:
            var members: [String: JSONValue] = [:]
            for property in properties {
                members[property.name] =
                    optional.contains(property.name) ? SchemaProbe.nullable(property.schema) : property.schema
            }
            let required = properties.map(\.name).filter { !optional.contains($0) }
            var object: [String: JSONValue] = ["type": "object", "properties": .object(members)]
            if !required.isEmpty { object["required"] = .array(required.map(JSONValue.string)) }
            plain = .object(object)
        }
        return nullable ? SchemaProbe.nullable(plain) : plain
    }
}

private final class ProbeDecoder: Decoder {
    let probe: SchemaProbe
    var shape = ProbeShape()
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    init(probe: SchemaProbe) {
        self.probe = probe
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        shape.kind = .object
        return KeyedDecodingContainer(KeyedProbe<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        shape.kind = .array
        return UnkeyedProbe(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        if shape.kind == .unknown { shape.kind = .single }
        return SingleProbe(decoder: self)
    }
}

private struct KeyedProbe<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }

    /// Asked by `decodeIfPresent` before it decodes: the key is optional and may be `null`.
    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.shape.optional.insert(key.stringValue)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let (schema, value) = try decoder.probe.describe(T.self)
        decoder.shape.set(key.stringValue, schema)
        return value
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(Bool.self as Bool.Type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(String.self as String.Type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(Double.self as Double.Type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(Float.self as Float.Type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(Int.self as Int.Type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { Int8(try decode(Int.self as Int.Type, key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { Int16(try decode(Int.self as Int.Type, key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(Int32.self as Int32.Type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(Int64.self as Int64.Type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(UInt.self as UInt.Type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { UInt8(try decode(UInt.self as UInt.Type, key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        UInt16(try decode(UInt.self as UInt.Type, key))
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        UInt32(try decode(UInt.self as UInt.Type, key))
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try decode(UInt64.self as UInt64.Type, key)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try decode(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = ProbeDecoder(probe: decoder.probe)
        let container = try nested.container(keyedBy: type)
        decoder.shape.set(key.stringValue, ["type": "object"])
        return container
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        decoder.shape.set(key.stringValue, ["type": "array"])
        return try ProbeDecoder(probe: decoder.probe).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
}

private struct UnkeyedProbe: UnkeyedDecodingContainer {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }
    var count: Int? { nil }
    var currentIndex = 0
    var isAtEnd: Bool { currentIndex > 0 }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (schema, value) = try decoder.probe.describe(T.self)
        decoder.shape.items = schema
        currentIndex += 1
        return value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try generic(Bool.self) }
    mutating func decode(_ type: String.Type) throws -> String { try generic(String.self) }
    mutating func decode(_ type: Double.Type) throws -> Double { try generic(Double.self) }
    mutating func decode(_ type: Float.Type) throws -> Float { try generic(Float.self) }
    mutating func decode(_ type: Int.Type) throws -> Int { try generic(Int.self) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { Int8(try generic(Int.self)) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { Int16(try generic(Int.self)) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try generic(Int32.self) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try generic(Int64.self) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try generic(UInt.self) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { UInt8(try generic(UInt.self)) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { UInt16(try generic(UInt.self)) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { UInt32(try generic(UInt.self)) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try generic(UInt64.self) }

    private mutating func generic<T: Decodable>(_ type: T.Type) throws -> T { try decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        currentIndex += 1
        decoder.shape.items = ["type": "object"]
        return try ProbeDecoder(probe: decoder.probe).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        currentIndex += 1
        decoder.shape.items = ["type": "array"]
        return try ProbeDecoder(probe: decoder.probe).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { decoder }
}

private struct SingleProbe: SingleValueDecodingContainer {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool {
        decoder.shape.nullable = true
        return false
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (schema, value) = try decoder.probe.describe(T.self)
        decoder.shape.single = schema
        decoder.shape.kind = .single
        return value
    }

    func decode(_ type: Bool.Type) throws -> Bool { try generic(Bool.self) }
    func decode(_ type: String.Type) throws -> String { try generic(String.self) }
    func decode(_ type: Double.Type) throws -> Double { try generic(Double.self) }
    func decode(_ type: Float.Type) throws -> Float { try generic(Float.self) }
    func decode(_ type: Int.Type) throws -> Int { try generic(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { Int8(try generic(Int.self)) }
    func decode(_ type: Int16.Type) throws -> Int16 { Int16(try generic(Int.self)) }
    func decode(_ type: Int32.Type) throws -> Int32 { try generic(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try generic(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try generic(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { UInt8(try generic(UInt.self)) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { UInt16(try generic(UInt.self)) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { UInt32(try generic(UInt.self)) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try generic(UInt64.self) }

    private func generic<T: Decodable>(_ type: T.Type) throws -> T { try decode(type) }
}
