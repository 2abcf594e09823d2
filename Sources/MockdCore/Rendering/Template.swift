public import Foundation
import MockdFormat

/// A body or header value with `{{placeholders}}`, parsed once at load and rendered per request.
///
/// A placeholder is `{{helper arguments…}}` where the helper is one of `TemplateHelpers.list` (`{{now offset="+1d"
/// format="date"}}`, `{{request.json.user.id}}`, `{{fake.name}}`), or a block: `{{#if CONDITION}}…{{else if
/// CONDITION}}…{{else}}…{{/if}}` and `{{#unless CONDITION}}…{{/unless}}`, where a condition is a value (true unless
/// empty, `false`, `0` or `null`) or two compared with `==`, `!=`, `<`, `<=`, `>`, `>=` or `contains`.
/// `{{{{raw}}}}…{{{{/raw}}}}` sends what it holds as written. Text between braces that does not start with a letter,
/// `#` or `/` (`{{ }}`, `{{{…}}}`) is text. Anything else — an unknown helper, a bad argument, an unclosed block —
/// is a `TemplateProblem` in `problems`: the loaders refuse such a body (docs/FORMAT.md), so a placeholder is never
/// sent as written. Bodies that are not UTF-8 (images, fonts) are never templates.
///
/// In JSON written as a value (an override's or runtime stub's `body`, and whatever a `bodyPatch` produced), a string
/// that is exactly one placeholder takes the placeholder's JSON type: `"{{resources.orders.count}}"` renders `3`,
/// `"{{request.json.tags}}"` the request's array, `"{{counter}}"` a number, `"{{fake.bool}}"` a boolean.
public struct Template: Sendable {
    indirect enum Node: Sendable {
        case literal(Data)
        /// A placeholder and the exact bytes it was written as.
        case value(TemplateExpression, raw: Data)
        /// A JSON string that is exactly one placeholder (`raw` with its quotes): rendered as a JSON value.
        case jsonValue(TemplateExpression, raw: Data)
        /// `{{#if}}` with its `{{else if}}` branches, then `{{else}}` (a branch without a condition).
        case branches([Branch])
        /// A placeholder with a problem (in `problems`): renders nothing.
        case invalid(raw: Data)
        /// `{{{{raw}}}}…{{{{/raw}}}}`: renders what it holds (`content`), as written (`raw`) when only fake values render.
        case verbatim(content: Data, raw: Data)
    }

    struct Branch: Sendable {
        let condition: TemplateCondition?
        let nodes: [Node]
    }

    /// The text as written, cut at placeholders (blocks not nested yet): `renderingFakeValues()` works on it.
    private let flat: [Node]
    private let nodes: [Node]
    /// Whether quoted whole-value placeholders were read as `.jsonValue` (kept when the response is re-parsed).
    let jsonValues: Bool
    /// What is wrong with the template, one line each (`line 3: {{fake.nmae}}: unknown helper …`); empty when it can
    /// be rendered.
    public let problems: [TemplateProblem]

    /// Parses `data`; `nil` when it holds no placeholder (and no problem), so plain bodies cost nothing at serve time.
    /// - Parameter jsonValues: `data` is JSON written as a value: a string that is exactly one placeholder
    ///   (`"{{counter}}"`) renders as the placeholder's JSON value rather than as text inside the quotes.
    public static func parse(_ data: Data, jsonValues: Bool = false) -> Template? {
        let open: [UInt8] = [0x7B, 0x7B]
        guard ByteSearch.contains(open, in: data), String(data: data, encoding: .utf8) != nil else { return nil }
        let bytes = Data(data)  // zero-based offsets
        var flat: [Node] = []
        var tags: [(tag: TemplateTag, index: Int)] = []
        var problems: [TemplateProblem] = []
        var parser = TemplateTagParser()
        var literalStart = 0
        var searchFrom = 0
        func line(at offset: Int) -> Int { bytes[..<offset].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) } }
        func addLiteral(upTo end: Int) {
            if end > literalStart { flat.append(.literal(bytes[literalStart..<end])) }
        }
        let rawOpen = Data("{{{{raw}}}}".utf8)
        let rawClose = Data("{{{{/raw}}}}".utf8)
        while let start = ByteSearch.firstOffset(of: open, in: bytes, from: searchFrom) {
            if bytes[start...].starts(with: rawOpen) {
                addLiteral(upTo: start)
                let contentStart = start + rawOpen.count
                guard let end = bytes.range(of: rawClose, in: contentStart..<bytes.count) else {
                    problems.append(TemplateProblem("line \(line(at: start)): {{{{raw}}}} without {{{{/raw}}}}"))
                    flat.append(.invalid(raw: bytes[start...]))
                    literalStart = bytes.count
                    break
                }
                flat.append(
                    .verbatim(content: bytes[contentStart..<end.lowerBound], raw: bytes[start..<end.upperBound])
                )
                literalStart = end.upperBound
                searchFrom = end.upperBound
                continue
            }
            guard let end = ByteSearch.firstOffset(of: [0x7D, 0x7D], in: bytes, from: start + 2) else { break }
            let content = String(decoding: bytes[(start + 2)..<end], as: UTF8.self).trimmingCharacters(
                in: .whitespacesAndNewlines
            )
            guard TemplateTagParser.isTag(Substring(content)) else {
                searchFrom = start + 2
                continue
            }
            let tag: TemplateTag
            do {
                tag = try parser.parse(content)
            } catch {
                problems.append(TemplateProblem("line \(line(at: start)): {{\(content)}}: \(error.message)"))
                addLiteral(upTo: start)
                // A block whose condition is wrong still opens its block, so its end is not a second problem.
                let never = TemplateCondition(left: .bool(false), comparison: nil, negated: false)
                for keyword in ["if", "unless"] where content.hasPrefix("#\(keyword) ") || content == "#\(keyword)" {
                    tags.append((.blockOpen(never, keyword: keyword), flat.count))
                }
                if content.hasPrefix("else ") { tags.append((.elseBranch(never), flat.count)) }
                flat.append(.invalid(raw: bytes[start..<(end + 2)]))
                literalStart = end + 2
                searchFrom = end + 2
                continue
            }
            if case .value(let expression) = tag {
                let quote = UInt8(ascii: "\"")
                let wholeString =
                    jsonValues && start > literalStart && bytes[start - 1] == quote
                    && (start < 2 || bytes[start - 2] != UInt8(ascii: "\\")) && end + 2 < bytes.count
                    && bytes[end + 2] == quote
                if wholeString {
                    addLiteral(upTo: start - 1)
                    flat.append(.jsonValue(expression, raw: bytes[(start - 1)..<(end + 3)]))
                    literalStart = end + 3
                    searchFrom = end + 3
                    continue
                }
                addLiteral(upTo: start)
                flat.append(.value(expression, raw: bytes[start..<(end + 2)]))
            } else {
                addLiteral(upTo: start)
                tags.append((tag, flat.count))
                flat.append(.invalid(raw: bytes[start..<(end + 2)]))  // replaced when the blocks are nested
            }
            literalStart = end + 2
            searchFrom = end + 2
        }
        if literalStart < bytes.count { flat.append(.literal(bytes[literalStart...])) }
        guard flat.contains(where: { if case .literal = $0 { false } else { true } }) else { return nil }
        var blockTags: [Int: TemplateTag] = [:]
        for (tag, index) in tags { blockTags[index] = tag }
        let nodes = nest(flat, blockTags: blockTags, problems: &problems)
        return Template(flat: flat, nodes: nodes, jsonValues: jsonValues, problems: problems)
    }

    /// The flat list with each `{{#if}}…{{/if}}` made one `.branches` node; a block left open, an `{{else}}` or
    /// `{{/if}}` without its `{{#if}}`, or a `{{/unless}}` closing an `{{#if}}`, is a problem.
    private static func nest(_ flat: [Node], blockTags: [Int: TemplateTag], problems: inout [TemplateProblem]) -> [Node]
    {
        struct Open {
            var keyword: String
            var branches: [Branch] = []
            var condition: TemplateCondition?
            var nodes: [Node] = []
            var sawElse = false
        }
        var stack: [Open] = []
        var top: [Node] = []
        func append(_ node: Node) {
            if stack.isEmpty { top.append(node) } else { stack[stack.count - 1].nodes.append(node) }
        }
        for (index, node) in flat.enumerated() {
            guard let tag = blockTags[index] else {
                append(node)
                continue
            }
            switch tag {
            case .blockOpen(let condition, let keyword):
                stack.append(Open(keyword: keyword, condition: condition))
            case .elseBranch(let condition):
                guard var open = stack.popLast(), !open.sawElse else {
                    problems.append(
                        TemplateProblem(
                            stack.isEmpty ? "{{else}} outside {{#if}}…{{/if}}" : "{{else}} after the block's {{else}}"
                        )
                    )
                    continue
                }
                open.branches.append(Branch(condition: open.condition, nodes: open.nodes))
                open.condition = condition
                open.nodes = []
                open.sawElse = condition == nil
                stack.append(open)
            case .blockClose(let keyword):
                guard let open = stack.popLast() else {
                    problems.append(TemplateProblem("{{/\(keyword)}} without {{#\(keyword)}}"))
                    continue
                }
                if open.keyword != keyword {
                    problems.append(TemplateProblem("{{#\(open.keyword)}} closed by {{/\(keyword)}}"))
                }
                append(.branches(open.branches + [Branch(condition: open.condition, nodes: open.nodes)]))
            case .value:
                append(node)
            }
        }
        for open in stack.reversed() {
            problems.append(TemplateProblem("{{#\(open.keyword)}} without {{/\(open.keyword)}}"))
        }
        return top
    }

    /// The text with every placeholder rendered.
    public func render(_ context: TemplateContext) -> Data {
        var output = Data()
        Template.render(nodes, context, into: &output)
        return output
    }

    private static func render(_ nodes: [Node], _ context: TemplateContext, into output: inout Data) {
        for node in nodes {
            switch node {
            case .literal(let data), .verbatim(let data, _): output.append(data)
            case .value(let expression, _): output.append(contentsOf: context.value(expression).text.utf8)
            case .jsonValue(let expression, _): output.append(context.value(expression).jsonData)
            case .branches(let branches):
                if let taken = branches.first(where: { $0.condition.map(context.holds) ?? true }) {
                    render(taken.nodes, context, into: &output)
                }
            case .invalid: break
            }
        }
    }

    /// The text with only the fixed fake-value placeholders (`{{token}}`, `{{email}}`…) replaced; everything else
    /// stays as written. These never change, so they are rendered once when a mock set loads.
    public func renderingFakeValues() -> Data {
        var output = Data()
        for node in flat {
            switch node {
            case .literal(let data): output.append(data)
            case .value(let expression, let raw):
                if case .fixedFake(let name) = expression.kind, let value = FakeValues.value(for: name) {
                    output.append(contentsOf: value.utf8)
                } else {
                    output.append(raw)
                }
            case .jsonValue(let expression, let raw):
                if case .fixedFake(let name) = expression.kind, let value = FakeValues.value(for: name) {
                    output.append(TemplateContext.jsonString(value))
                } else {
                    output.append(raw)
                }
            case .invalid(let raw), .verbatim(_, let raw): output.append(raw)
            case .branches: break  // never in the flat list
            }
        }
        return output
    }

    /// Whether some placeholder names a fake value (`{{token}}`, `{{email}}`…).
    public var usesFakeValues: Bool {
        flat.contains {
            switch $0 {
            case .value(let expression, _), .jsonValue(let expression, _): expression.isFixedFake
            default: false
            }
        }
    }

    /// `data` with its fake-value placeholders rendered (unchanged when it has none).
    public static func renderingFakeValues(in data: Data) -> Data {
        parse(data)?.renderingFakeValues() ?? data
    }

    /// Renders a header value (only when it contains `{{`).
    static func renderText(_ text: String, _ context: TemplateContext) -> String {
        guard text.contains("{{"), let template = parse(Data(text.utf8)) else { return text }
        return String(decoding: template.render(context), as: UTF8.self)
    }

    /// The problems of the placeholders in `text` (a header value, a rule's text); empty when it has none.
    static func problems(in text: String) -> [TemplateProblem] {
        guard text.containsPlaceholderOpening else { return [] }
        return parse(Data(text.utf8))?.problems ?? []
    }
}
