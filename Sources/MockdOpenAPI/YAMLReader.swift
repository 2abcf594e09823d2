internal import CYAML
public import Foundation
public import MockdFormat

/// YAML text read into a `JSONValue` through libyaml's event parser (YAML 1.1 syntax, scalars resolved by the
/// YAML 1.2 core schema, which OpenAPI documents are written to).
///
/// Plain scalars become `null` (`~`, `null`, empty), booleans (`true`/`false` in any of YAML's three cases),
/// integers (decimal, `0x`, `0o`), floats (`1.5`, `1e3`, `.inf`, `.nan`) or strings; quoted and block scalars and
/// `!!str` are always strings. Mapping keys are their text (`200:` is the key `"200"`). Anchors and aliases are
/// resolved; `<<` merge keys merge. Only the first document of a stream is read.
public enum YAMLReader {
    /// - Throws: `YAMLError` with the 1-based line and column of the problem.
    public static func read(_ data: Data) throws(YAMLError) -> JSONValue {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw YAMLError(line: 0, column: 0, message: "libyaml could not start")
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = [UInt8](data)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(YAMLError) -> JSONValue in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
                    let context = parser.context.map { String(cString: $0) + ": " } ?? ""
                    throw YAMLError(
                        line: Int(parser.problem_mark.line) + 1,
                        column: Int(parser.problem_mark.column) + 1,
                        message: context + problem
                    )
                }
                defer { yaml_event_delete(&event) }
                let line = Int(event.start_mark.line) + 1
                let column = Int(event.start_mark.column) + 1
                switch event.type {
                case YAML_STREAM_END_EVENT, YAML_DOCUMENT_END_EVENT:
                    if let root = builder.root { return root }
                    if event.type == YAML_STREAM_END_EVENT { return .null }
                case YAML_SCALAR_EVENT:
                    let scalar = event.data.scalar
                    let text = String(
                        decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length),
                        as: UTF8.self
                    )
                    let tag = scalar.tag.map { String(cString: $0) }
                    let plain = scalar.style == YAML_PLAIN_SCALAR_STYLE && tag == nil
                    let value = plain ? resolvePlain(text) : .string(text)
                    try builder.add(value, key: text, anchor: scalar.anchor.map { String(cString: $0) }, line, column)
                case YAML_ALIAS_EVENT:
                    let name = String(cString: event.data.alias.anchor)
                    guard let anchored = builder.anchors[name] else {
                        throw YAMLError(line: line, column: column, message: "unknown alias *\(name)")
                    }
                    try builder.add(anchored.value, size: anchored.size, key: nil, anchor: nil, line, column)
                case YAML_SEQUENCE_START_EVENT:
                    builder.open(true, anchor: event.data.sequence_start.anchor.map { String(cString: $0) })
                case YAML_MAPPING_START_EVENT:
                    builder.open(false, anchor: event.data.mapping_start.anchor.map { String(cString: $0) })
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    try builder.close(line, column)
                default: break
                }
            }
        }
    }

    /// The core schema's resolution of a plain scalar.
    static func resolvePlain(_ text: String) -> JSONValue {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .double(.infinity)
        case "-.inf", "-.Inf", "-.INF": return .double(-.infinity)
        case ".nan", ".NaN", ".NAN": return .double(.nan)
        default: break
        }
        let unsigned = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        if !unsigned.isEmpty, unsigned.allSatisfy({ $0.isASCII && $0.isNumber }) {
            if let value = Int(text) { return .int(value) }
            if let value = Double(text) { return .double(value) }
        }
        if text.hasPrefix("0x"), let value = Int(text.dropFirst(2), radix: 16) { return .int(value) }
        if text.hasPrefix("0o"), let value = Int(text.dropFirst(2), radix: 8) { return .int(value) }
        let isFloat =
            text.range(of: #"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"#, options: .regularExpression)
            != nil
        if isFloat, let value = Double(text) { return .double(value) }
        return .string(text)
    }
}

/// Builds the tree from events: a stack of open collections.
private struct TreeBuilder {
    /// An open sequence or mapping. A class, so appending to the innermost one never copies what it holds (a value
    /// type popped off the stack and pushed back made a 10,000-entry `enum` take 1.2 s, 40,000 take 17 s).
    final class Frame {
        var elements: [JSONValue]?
        var members: [String: JSONValue]?
        var pendingKey: String?
        let anchor: String?
        /// Values this collection stands for once its aliases are expanded (itself included).
        var size = 1

        init(sequence: Bool, anchor: String?) {
            if sequence { elements = [] } else { members = [:] }
            self.anchor = anchor
        }
    }

    /// Aliases are shared, but whoever serialises the document expands them: a "billion laughs" document of a few
    /// hundred bytes would expand to billions of values. Refused beyond this many.
    static let maxExpandedValues = 1_000_000

    var stack: [Frame] = []
    var anchors: [String: (value: JSONValue, size: Int)] = [:]
    var root: JSONValue?

    mutating func open(_ sequence: Bool, anchor: String?) {
        stack.append(Frame(sequence: sequence, anchor: anchor))
    }

    mutating func close(_ line: Int, _ column: Int) throws(YAMLError) {
        guard let frame = stack.popLast() else { return }
        let value: JSONValue = frame.elements.map { .array($0) } ?? .object(frame.members ?? [:])
        if let anchor = frame.anchor { anchors[anchor] = (value, frame.size) }
        try add(value, size: frame.size, key: nil, anchor: nil, line, column, isCollection: true)
    }

    /// Adds a finished value (standing for `size` values once expanded) to the open collection; `key` is the
    /// scalar's text, used when it stands as a key.
    mutating func add(
        _ value: JSONValue,
        size: Int = 1,
        key: String?,
        anchor: String?,
        _ line: Int,
        _ column: Int,
        isCollection: Bool = false
    ) throws(YAMLError) {
        if let anchor { anchors[anchor] = (value, size) }
        guard let top = stack.last else {
            root = value
            return
        }
        if top.elements != nil {
            top.elements!.append(value)
        } else if let pendingKey = top.pendingKey {
            if pendingKey == "<<" {
                let sources: [JSONValue] = if case .array(let list) = value { list } else { [value] }
                for case .object(let merged) in sources {
                    for (name, member) in merged where top.members![name] == nil { top.members![name] = member }
                }
            } else {
                top.members![pendingKey] = value
            }
            top.pendingKey = nil
        } else {
            guard !isCollection, let key else {
                throw YAMLError(line: line, column: column, message: "a mapping key must be a scalar")
            }
            top.pendingKey = key
            return
        }
        top.size += size
        if top.size > TreeBuilder.maxExpandedValues {
            throw YAMLError(
                line: line,
                column: column,
                message:
                    "aliases expand to more than \(TreeBuilder.maxExpandedValues) values (a \"billion laughs\" document?); refused"
            )
        }
    }
}

/// YAML that libyaml cannot read, with where (1-based line and column).
public struct YAMLError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { "line \(line), column \(column): \(message)" }
}
