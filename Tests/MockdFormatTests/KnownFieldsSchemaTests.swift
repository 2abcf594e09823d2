import Foundation
import MockdFormat
import Testing

/// `KnownFields` (what mockd accepts) and `docs/schema/*.schema.json` (what editors validate against) name the same
/// fields at every level of both formats. A field added to one and not the other fails here, with its path.
struct KnownFieldsSchemaTests {
    static let schemaFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/schema")

    @Test(arguments: [("scenario.schema.json", "scenario"), ("mockset.schema.json", "mockSet")])
    func knownFieldsAndTheSchemaNameTheSameFields(file: String, format: String) throws {
        let data = try Data(contentsOf: Self.schemaFolder.appendingPathComponent(file))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let shape = format == "scenario" ? KnownFields.scenario : KnownFields.mockSet
        var comparison = SchemaComparison(root: schema)
        comparison.compare(shape, schema, at: "(top level)")
        #expect(comparison.disagreements == [], "\(file) and KnownFields.\(format) disagree")
    }

    /// Every `fault` and `afterLast` in both schemas lists exactly the cases of `Fault` and `ExhaustionPolicy` (in any
    /// order); a difference names the schema's JSON path and what to add or remove there.
    @Test(arguments: ["scenario.schema.json", "mockset.schema.json"])
    func enumeratedValuesAreTheFormatsCases(file: String) throws {
        let data = try Data(contentsOf: Self.schemaFolder.appendingPathComponent(file))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cases: [String: Set<String>] = [
            "fault": Set(Fault.allCases.map(\.rawValue)), "afterLast": Set(ExhaustionPolicy.allCases.map(\.rawValue)),
        ]
        var found: [String: Int] = [:]
        var problems: [String] = []
        // Only where the enum is written (a `$ref` to it is checked where it points).
        func walk(_ node: Any, _ path: String) {
            if let object = node as? [String: Any] {
                for (key, value) in object.sorted(by: { $0.key < $1.key }) {
                    let childPath = path + "/" + key
                    if let expected = cases[key], let values = (value as? [String: Any])?["enum"] as? [String] {
                        found[key, default: 0] += 1
                        let written = Set(values)
                        for missing in expected.subtracting(written).sorted() {
                            problems.append("\(file) \(childPath)/enum: add \"\(missing)\" (a case of the Swift type)")
                        }
                        for extra in written.subtracting(expected).sorted() {
                            problems.append(
                                "\(file) \(childPath)/enum: remove \"\(extra)\" (no such case in the Swift type)"
                            )
                        }
                    }
                    walk(value, childPath)
                }
            } else if let array = node as? [Any] {
                for (index, element) in array.enumerated() { walk(element, "\(path)/\(index)") }
            }
        }
        walk(schema, "#")
        #expect((found["fault"] ?? 0) > 0 && (found["afterLast"] ?? 0) > 0, "\(file): no fault or afterLast enum found")
        #expect(problems == [], "\(problems.joined(separator: "\n"))")
    }

    @Test func aMissingFieldIsReportedWithItsPath() throws {
        let schema: [String: Any] = [
            "type": "object", "properties": ["a": ["type": "object", "properties": ["b": [:], "c": [:]]]],
        ]
        var comparison = SchemaComparison(root: schema)
        comparison.compare(.object(["a": .object(["b": .any, "d": .any])]), schema, at: "(top level)")
        #expect(
            comparison.disagreements == [
                "a: only the schema has c", "a: only KnownFields has d",
            ]
        )
    }

    @Test func unknownFieldsAreFoundWithASuggestion() {
        let fields = KnownFields.unknownFields(
            in: Data(#"{"overrides": [{"match": {"path": "/a"}, "latancy": 5}]}"#.utf8),
            shape: KnownFields.scenario
        )
        #expect(
            fields == [
                KnownFields.UnknownField(
                    jsonPath: "overrides[0].latancy",
                    message: #"unknown field (did you mean "latency"?)"#
                )
            ]
        )
    }
}

/// Walks a `KnownFields.Shape` and a JSON Schema side by side, collecting where their field names differ.
struct SchemaComparison {
    let root: [String: Any]
    var disagreements: [String] = []

    /// `node` with `$ref`s to `#/$defs/…` followed.
    func resolved(_ node: Any) -> [String: Any] {
        guard var object = node as? [String: Any] else { return [:] }
        while let reference = object["$ref"] as? String, reference.hasPrefix("#/$defs/") {
            let name = String(reference.dropFirst("#/$defs/".count))
            object = ((root["$defs"] as? [String: Any])?[name] as? [String: Any]) ?? [:]
        }
        return object
    }

    /// The node and its `oneOf`/`anyOf`/`allOf` alternatives, resolved.
    func alternatives(_ node: Any) -> [[String: Any]] {
        let object = resolved(node)
        var result = [object]
        for key in ["oneOf", "anyOf", "allOf"] {
            for alternative in object[key] as? [Any] ?? [] { result += alternatives(alternative) }
        }
        return result
    }

    mutating func compare(_ shape: KnownFields.Shape, _ node: Any, at path: String) {
        let options = alternatives(node)
        switch shape {
        case .any:
            // Free content: the schema must not close it either, or a typo there would pass mockd and fail editors.
            if options.contains(where: { $0["properties"] != nil && ($0["additionalProperties"] as? Bool) == false }) {
                disagreements.append("\(path): KnownFields leaves it free, the schema lists its fields")
            }
        case .object(let fields):
            let objects = options.filter { $0["properties"] != nil }
            guard !objects.isEmpty else {
                disagreements.append("\(path): KnownFields lists fields \(fields.keys.sorted()), the schema none")
                return
            }
            var schemaFields: [String: Any] = [:]
            for object in objects {
                for (name, value) in object["properties"] as? [String: Any] ?? [:] { schemaFields[name] = value }
            }
            let prefix = path == "(top level)" ? "" : path + "."
            for name in Set(schemaFields.keys).subtracting(fields.keys).sorted() {
                disagreements.append("\(path): only the schema has \(name)")
            }
            for name in Set(fields.keys).subtracting(schemaFields.keys).sorted() {
                disagreements.append("\(path): only KnownFields has \(name)")
            }
            for (name, child) in fields.sorted(by: { $0.key < $1.key }) {
                guard let schemaChild = schemaFields[name] else { continue }
                compare(child, schemaChild, at: prefix + name)
            }
        case .array(let element):
            guard let items = options.lazy.compactMap({ $0["items"] }).first else {
                disagreements.append("\(path): KnownFields expects an array, the schema has no items")
                return
            }
            compare(element, items, at: path + "[]")
        case .map(let element):
            guard let values = options.lazy.compactMap({ $0["additionalProperties"] as? [String: Any] }).first else {
                disagreements.append(
                    "\(path): KnownFields expects a map, the schema has no additionalProperties schema"
                )
                return
            }
            compare(element, values, at: path + ".*")
        case .oneOrMany(let element):
            let single = options.filter { $0["properties"] != nil }
            guard let items = options.lazy.compactMap({ $0["items"] }).first, let object = single.first else {
                disagreements.append("\(path): KnownFields expects one object or an array of them, the schema does not")
                return
            }
            compare(element, object, at: path)
            compare(element, items, at: path + "[]")
        }
    }
}
