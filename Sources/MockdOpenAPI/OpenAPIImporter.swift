internal import Foundation
public import MockdFormat

/// `mockd import-openapi`: an OpenAPI document as a scenario of overrides, one per operation and documented status.
///
/// Each override matches the operation's method and served path as a `{name}` path template (`/v1/pets/{petId}`)
/// and answers the status with the media type's `example`, its first named `examples` entry, or an example
/// generated from the schema (`ExampleGenerator`, `seed`). Per operation the lowest 2xx status (else the lowest
/// documented one) answers by default; every other status answers a request with `Prefer: code=<status>`, and a
/// named example with `Prefer: example=<name>` — the convention of Stoplight Prism, so a UI test can ask for the
/// 404. `default` is served as 200 when it is the only response, else as 500 (`Prefer: code=500`) unless 500 is
/// documented (then left out and reported); a range (`4XX`)
/// is served as its first code (`400`). Operations with literal paths are listed after templated ones, so
/// `/pets/mine` wins over `/pets/{id}` (ties go to the later override).
public enum OpenAPIImporter {
    /// What an import writes and says.
    public struct Result: Sendable {
        public var scenario: ScenarioFile
        /// One line per decision a reader should know (`GET /pets: default response not served`…).
        public var notes: [String]
        public var operations: Int
        public var overrides: Int
    }

    /// - Parameter seed: Varies the generated examples; the same seed gives the same files.
    public static func build(_ document: OpenAPIDocument, seed: UInt64) -> Result {
        var generator = ExampleGenerator(document: document, seed: seed)
        var notes: [String] = []
        var overrides: [(templates: Int, entry: ScenarioFile.OverrideEntry)] = []
        for operation in document.operations {
            let templates = operation.servedPath.filter { $0 == "{" }.count
            var served: [(code: Int, response: OpenAPIResponse)] = []
            for response in operation.responses {
                if response.status == "DEFAULT" {
                    if operation.responses.count == 1 {
                        served.append((200, response))
                    } else if !operation.responses.contains(where: { $0.covers(500) }) {
                        served.append((500, response))
                    } else {
                        notes.append(
                            "\(operation.method) \(operation.path): the default response is not served (500 is documented)"
                        )
                    }
                } else if let code = Int(response.status.replacingOccurrences(of: "XX", with: "00")) {
                    served.append((code, response))
                }
            }
            guard !served.isEmpty else {
                notes.append("\(operation.method) \(operation.path): no documented response; not served")
                continue
            }
            let primary = served.filter { (200..<300).contains($0.code) }.map(\.code).min() ?? served.map(\.code).min()!
            for (code, response) in served.sorted(by: { $0.code < $1.code }) {
                let media = response.contents.first { $0.isJSON && $0.type != "*/*" } ?? response.contents.first
                var answers: [(example: String?, body: JSONValue, headers: [String: String?])] = []
                if let media {
                    let headers: [String: String?] = [
                        "Content-Type": media.type.contains("*") ? "application/json" : media.type
                    ]
                    if let example = media.example {
                        answers.append((nil, example, headers))
                    } else if !media.examples.isEmpty {
                        for (index, (name, value)) in media.examples.enumerated() {
                            answers.append((index == 0 ? nil : name, value, headers))
                        }
                    } else if let pointer = media.schemaPointer {
                        answers.append((nil, generator.example(forSchemaAt: pointer), headers))
                    } else {
                        answers.append((nil, media.isJSON ? [:] : "", headers))
                    }
                    if media.isJSON {
                        // A string is sent as text: JSON written as a string in the document stays as written, any
                        // other string is encoded as the JSON string it is.
                        answers = answers.map { answer in
                            guard case .string(let text) = answer.body,
                                (try? JSONValue(parsing: Data(text.utf8))) == nil
                            else { return answer }
                            let encoded = (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) }
                            return (answer.example, .string(encoded ?? "\"\""), answer.headers)
                        }
                    } else {
                        answers = answers.map { answer in
                            if case .string = answer.body { return answer }
                            return (answer.example, .string(""), answer.headers)
                        }
                    }
                } else {
                    answers.append((nil, "", [:]))
                }
                for answer in answers {
                    var preferences: [String] = []
                    if code != primary { preferences.append("code=\(code)") }
                    if let name = answer.example { preferences.append("example=\(name)") }
                    let headers: [String: ValueMatchEntry]? =
                        preferences.isEmpty
                        ? nil : ["Prefer": ValueMatchEntry(matches: Self.preferPattern(preferences))]
                    let text = answer.body.stringValue ?? ""
                    let step = ResponseStepEntry(
                        status: code,
                        headers: answer.headers.isEmpty ? nil : answer.headers,
                        body: answer.body,
                        templated: text.contains("{{") || answer.body.containsPlaceholderText ? false : nil
                    )
                    let id = [
                        operation.operationID ?? "\(operation.method) \(operation.path)", String(code), answer.example,
                    ]
                    .compactMap { $0 }.joined(separator: " ")
                    overrides.append(
                        (
                            templates,
                            ScenarioFile.OverrideEntry(
                                id: id,
                                priority: preferences.count,
                                match: ScenarioFile.MatchEntry(
                                    method: operation.method,
                                    path: operation.servedPath,
                                    headers: headers
                                ),
                                step: step
                            )
                        )
                    )
                }
            }
        }
        let ordered = Array(overrides.enumerated())
        let entries = ordered.sorted { left, right in
            left.element.templates != right.element.templates
                ? left.element.templates > right.element.templates : left.offset < right.offset
        }.map(\.element.entry)
        let scenario = ScenarioFile(
            description: "Imported from \(document.display) (OpenAPI \(document.version)) by mockd import-openapi",
            sets: [],
            overrides: entries
        )
        return Result(scenario: scenario, notes: notes, operations: document.operations.count, overrides: entries.count)
    }
}

extension OpenAPIImporter {
    /// A whole-value regular expression for a `Prefer` header (RFC 7240) holding every one of `preferences`
    /// (`code=404`) among its comma- or semicolon-separated tokens.
    /// Written with `[^\n]*` rather than `.*`: `RegexGuard` refuses more than two `.*` in one pattern (each can
    /// multiply the time a near match takes); a header value holds no line feed, so the class means the same here.
    static func preferPattern(_ preferences: [String]) -> String {
        preferences.map { "(?=([^\\n]*[ ,;])?\\Q\($0)\\E([ ,;][^\\n]*)?$)" }.joined() + "[^\\n]*"
    }
}

extension JSONValue {
    /// Whether any string inside holds `{{` (a body to send literally, not as a mockd template).
    var containsPlaceholderText: Bool {
        switch self {
        case .string(let text): return text.contains("{{")
        case .array(let elements): return elements.contains { $0.containsPlaceholderText }
        case .object(let members): return members.values.contains { $0.containsPlaceholderText }
        default: return false
        }
    }
}
