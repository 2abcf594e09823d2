import Foundation
import MockdFormat

/// Prints a stub of a set's `index.json` byte for byte as `JSONEncoder` does with `.prettyPrinted`, `.sortedKeys` and
/// `.withoutEscapingSlashes`, indented to its depth in the file (2), for the stubs made of strings, string lists,
/// numbers and flags: every stub `import-har` writes from plain HTTP traffic. Any other stub (JSON bodies, GraphQL,
/// WebSocket scripts, event streams, faults, pushes, `afterLast`, a non-finite time) is left to the encoder.
///
/// Why: the encoder builds a tree of boxed values for each stub and then prints it; that was ~22% of the instructions
/// of importing 10,000 small entries. What the encoder does, this mirrors: keys in UTF-8 byte order, `"key" : value`,
/// two spaces a level, an empty list as `[`, a blank line and `]`, strings escaped as `\"`, `\\`, `\b`, `\f`, `\n`,
/// `\r`, `\t` and `\u00xx` (lowercase hex) for other bytes below 0x20, everything else raw; a `Double` as its
/// `description` without a trailing `.0`. `IndexStubPrinterTests` compares the two on random and recorded sets, and
/// fails when a field is added to these types until it is printed here or its stubs are left to the encoder.
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
            if let id = stub.id {
                printer.key("id", &fields)
                printer.string(id)
            }
            printer.key("request", &fields)
            printer.object(depth: 4) { printer, fields in
                if let body = request.body {
                    printer.key("body", &fields)
                    printer.body(body, depth: 5)
                }
                if let headers = request.headers {
                    printer.key("headers", &fields)
                    printer.list(headers, depth: 5)
                }
                if let host = request.host {
                    printer.key("host", &fields)
                    printer.string(host)
                }
                printer.key("method", &fields)
                printer.string(request.method)
                printer.key("path", &fields)
                printer.string(request.path)
                if let query = request.query {
                    printer.key("query", &fields)
                    printer.string(query)
                }
                if let recorded = request.recordedBody {
                    printer.key("recordedBody", &fields)
                    printer.body(recorded, depth: 5)
                }
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

    private static let lowercaseHex = Array("0123456789abcdef".utf8)

    private mutating func response(_ response: MockSetFile.ResponseEntry) {
        object(depth: 5) { printer, fields in
            if let body = response.body {
                printer.key("body", &fields)
                printer.string(body)
            }
            if let bodyFile = response.bodyFile {
                printer.key("bodyFile", &fields)
                printer.string(bodyFile)
            }
            if let cachedCopy = response.cachedCopy {
                printer.key("cachedCopy", &fields)
                printer.string(cachedCopy)
            }
            if let conditionalOnly = response.conditionalOnly {
                printer.key("conditionalOnly", &fields)
                printer.bool(conditionalOnly)
            }
            if let dates = response.dates {
                printer.key("dates", &fields)
                printer.object(depth: 6) { printer, fields in
                    if let body = dates.body {
                        printer.key("body", &fields)
                        printer.list(body, depth: 7)
                    }
                    if let headers = dates.headers {
                        printer.key("headers", &fields)
                        printer.list(headers, depth: 7)
                    }
                    printer.key("recordedAt", &fields)
                    printer.string(dates.recordedAt)
                }
            }
            if let headers = response.headers {
                printer.key("headers", &fields)
                printer.list(headers, depth: 6)
            }
            if let miss = response.miss {
                printer.key("miss", &fields)
                printer.string(miss)
            }
            if let rangeOnly = response.rangeOnly {
                printer.key("rangeOnly", &fields)
                printer.bool(rangeOnly)
            }
            if let time = response.recordedTimeMs {
                printer.key("recordedTimeMs", &fields)
                printer.double(time)
            }
            if let status = response.status {
                printer.key("status", &fields)
                printer.ascii(String(status))
            }
            if let templated = response.templated {
                printer.key("templated", &fields)
                switch templated {
                case .on: printer.bool(true)
                case .off: printer.bool(false)
                case .redactedOnly: printer.string("redacted")
                }
            }
            if let validators = response.validators {
                printer.key("validators", &fields)
                printer.list(validators, depth: 6)
            }
        }
    }

    private mutating func body(_ body: MockSetFile.BodyEntry, depth: Int) {
        object(depth: depth) { printer, fields in
            if let contentType = body.contentType {
                printer.key("contentType", &fields)
                printer.string(contentType)
            }
            if let file = body.file {
                printer.key("file", &fields)
                printer.string(file)
            }
            if let text = body.text {
                printer.key("text", &fields)
                printer.string(text)
            }
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

    /// `text` quoted and escaped as the encoder escapes it (see the type's comment): unescaped runs copied at once.
    private mutating func string(_ text: String) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for (offset, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<offset]))
                runStart = offset + 1
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22, 0x5C: output.append(byte)
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x09: output.append(UInt8(ascii: "t"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                default:
                    output.append(contentsOf: "u00".utf8)
                    output.append(Self.lowercaseHex[Int(byte >> 4)])
                    output.append(Self.lowercaseHex[Int(byte & 0xF)])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

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
