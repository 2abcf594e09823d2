import Foundation
import MockdFormat

/// Prints a stub of a set's `index.json` byte for byte as `JSONEncoder` does with `.prettyPrinted`, `.sortedKeys` and
/// `.withoutEscapingSlashes`, indented to its depth in the file (2), for the stubs made of strings, string lists,
/// numbers and flags: every stub `import-har` writes from plain HTTP traffic. Any other stub (JSON bodies, GraphQL,
/// WebSocket scripts, event streams, faults, pushes, `afterLast`, a non-finite time) is left to the encoder.
///
/// Why: the encoder builds a tree of boxed values for each stub and then prints it; that was ~22% of the instructions
/// of importing 10,000 small entries. What the encoder does, this mirrors: keys in UTF-8 byte order, `"key" : value`,
/// two spaces a level, an empty list as `[`, a blank line and `]`, strings escaped as Foundation's writers escape them
/// (`JSONTokens.appendQuoted`); a `Double` as its `description` without a trailing `.0`. `IndexStubPrinterTests`
/// compares the two on random and recorded sets, and fails when a field is added to these types until it is printed
/// here or its stubs are left to the encoder.
struct IndexStubPrinter {
    /// The printed stubs, appended to.
    private(set) var output: [UInt8] = []

    /// Appends `stub` as it prints as an element of the file's `stubs` (its `{` after four spaces, its fields at depth
    /// 3), or returns `false` with `output` as it was when the stub holds a field only the encoder prints.
    mutating func append(_ stub: MockSetFile.StubEntry) -> Bool {
        guard Self.fitsPrinter(stub) else { return false }
        let request = stub.request
        indent(2)
        object(depth: 3) { printer, fields in
            printer.field("id", stub.id, &fields)
            printer.key("request", &fields)
            printer.object(depth: 4) { printer, fields in
                printer.field("body", request.body, &fields) { $0.body($1, depth: 5) }
                printer.field("headers", request.headers, &fields) { $0.list($1, depth: 5) }
                printer.field("host", request.host, &fields)
                printer.field("method", request.method, &fields)
                printer.field("path", request.path, &fields)
                printer.field("query", request.query, &fields)
                printer.field("recordedBody", request.recordedBody, &fields) { $0.body($1, depth: 5) }
            }
            printer.key("responses", &fields)
            printer.array(stub.responses, depth: 4) { $0.response($1) }
        }
        return true
    }

    /// Appends `bytes` as they are.
    mutating func append(raw bytes: some Collection<UInt8>) { output.append(contentsOf: bytes) }

    /// Clears `output`, keeping its capacity.
    mutating func removeAll() { output.removeAll(keepingCapacity: true) }

    /// Whether every field of `stub` is one this printer prints.
    static func fitsPrinter(_ stub: MockSetFile.StubEntry) -> Bool {
        stub.afterLast == nil && stub.request.graphql == nil && stub.request.body?.json == nil
            && stub.request.recordedBody?.json == nil
            && stub.responses.allSatisfy { response in
                response.json == nil && response.websocket == nil && response.events == nil && response.fault == nil
                    && response.emit == nil && (response.recordedTimeMs?.isFinite ?? true)
            }
    }

    // MARK: Values

    private mutating func response(_ response: MockSetFile.ResponseEntry) {
        object(depth: 5) { printer, fields in
            printer.field("body", response.body, &fields)
            printer.field("bodyFile", response.bodyFile, &fields)
            printer.field("cachedCopy", response.cachedCopy, &fields)
            printer.field("conditionalOnly", response.conditionalOnly, &fields) { $0.bool($1) }
            printer.field("dates", response.dates, &fields) { printer, dates in
                printer.object(depth: 6) { printer, fields in
                    printer.field("body", dates.body, &fields) { $0.list($1, depth: 7) }
                    printer.field("headers", dates.headers, &fields) { $0.list($1, depth: 7) }
                    printer.field("recordedAt", dates.recordedAt, &fields)
                }
            }
            printer.field("headers", response.headers, &fields) { $0.list($1, depth: 6) }
            printer.field("miss", response.miss, &fields)
            printer.field("rangeOnly", response.rangeOnly, &fields) { $0.bool($1) }
            printer.field("recordedTimeMs", response.recordedTimeMs, &fields) { $0.double($1) }
            printer.field("status", response.status, &fields) { $0.ascii(String($1)) }
            printer.field("templated", response.templated, &fields) { printer, templated in
                switch templated {
                case .on: printer.bool(true)
                case .off: printer.bool(false)
                case .redactedOnly: printer.string("redacted")
                }
            }
            printer.field("validators", response.validators, &fields) { $0.list($1, depth: 6) }
        }
    }

    private mutating func body(_ body: MockSetFile.BodyEntry, depth: Int) {
        object(depth: depth) { printer, fields in
            printer.field("contentType", body.contentType, &fields)
            printer.field("file", body.file, &fields)
            printer.field("text", body.text, &fields)
        }
    }

    private mutating func list(_ values: [String], depth: Int) {
        array(values, depth: depth) { $0.string($1) }
    }

    /// `[`, each element on its own line at `depth`, `]` at `depth - 1`; an empty array as `[`, a blank line, `]`.
    private mutating func array<Element>(
        _ elements: [Element],
        depth: Int,
        _ element: (inout IndexStubPrinter, Element) -> Void
    ) {
        output.append(UInt8(ascii: "["))
        if elements.isEmpty { output.append(0x0A) }
        for (position, value) in elements.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            output.append(0x0A)
            indent(depth)
            element(&self, value)
        }
        output.append(0x0A)
        indent(depth - 1)
        output.append(UInt8(ascii: "]"))
    }

    private mutating func bool(_ value: Bool) { ascii(value ? "true" : "false") }

    /// The encoder's form of a finite `Double`: its shortest round-trip `description`, less a trailing `.0`.
    private mutating func double(_ value: Double) {
        let text = value.description
        ascii(text.hasSuffix(".0") ? String(text.dropLast(2)) : text)
    }

    private mutating func ascii(_ text: String) { output.append(contentsOf: text.utf8) }

    private mutating func indent(_ depth: Int) {
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    private mutating func string(_ text: String) { JSONTokens.appendQuoted(text, to: &output) }

    /// How many fields an open object has printed, and their depth.
    private struct Fields {
        let depth: Int
        var count = 0
    }

    /// `{`, the fields `print` adds (through `key`, in sorted order) on lines at `depth`, `}` at `depth - 1`; an
    /// empty object as `{`, a blank line, `}`.
    private mutating func object(depth: Int, _ print: (inout IndexStubPrinter, inout Fields) -> Void) {
        output.append(UInt8(ascii: "{"))
        var fields = Fields(depth: depth)
        print(&self, &fields)
        output.append(0x0A)
        if fields.count == 0 { output.append(0x0A) }
        indent(depth - 1)
        output.append(UInt8(ascii: "}"))
    }

    /// The field `name` with `value` printed by `print`; nothing when `value` is `nil` (the encoder leaves it out).
    private mutating func field<Value>(
        _ name: StaticString,
        _ value: Value?,
        _ fields: inout Fields,
        _ print: (inout IndexStubPrinter, Value) -> Void
    ) {
        guard let value else { return }
        key(name, &fields)
        print(&self, value)
    }

    /// The string field `name`; nothing when `value` is `nil`.
    private mutating func field(_ name: StaticString, _ value: String?, _ fields: inout Fields) {
        field(name, value, &fields) { $0.string($1) }
    }

    /// A field's `"name" : ` on its own line (after a `,` unless it is the first).
    private mutating func key(_ name: StaticString, _ fields: inout Fields) {
        if fields.count > 0 { output.append(UInt8(ascii: ",")) }
        fields.count += 1
        output.append(0x0A)
        indent(fields.depth)
        output.append(UInt8(ascii: "\""))
        output.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        output.append(contentsOf: "\" : ".utf8)
    }
}
