import Foundation
import MockdFormat
import MockdPlatform

/// A JSON value read from a WireMock file, with its file and JSON path for messages.
struct WireMockNode {
    let value: JSONValue
    let file: String
    /// `""` for the top level, else `mappings[2].request.url`.
    let path: String
    /// The file's bytes and this value's place in them, for values served as written (`jsonBody`).
    var document: Document? = nil
    var steps: [JSONSpan.Step] = []

    /// A file's bytes, shared by all its nodes, and where the elements of its arrays start (found once per array:
    /// a file of 60,000 mappings with a `jsonBody` each walked every mapping before each one's, and copied the file).
    final class Document: Sendable {
        let bytes: [UInt8]
        private let elementStarts = Mutex<[[JSONSpan.Step]: [Int]]>([:])

        init(_ data: Data) { self.bytes = [UInt8](data) }

        /// The offset of element `index` of the array at `path`, or `nil`.
        func start(ofElement index: Int, ofArrayAt path: [JSONSpan.Step]) -> Int? {
            let starts = elementStarts.withLock { known in
                if let found = known[path] { return found }
                let found = JSONSpan.elementStarts(ofArrayAt: path, in: bytes) ?? []
                known[path] = found
                return found
            }
            return starts.indices.contains(index) ? starts[index] : nil
        }
    }

    /// This value as written in the file, compacted: keys in their order, numbers as spelt (`550.00`).
    var writtenText: String? {
        guard let document else { return nil }
        // From the deepest array element on the way, found through its array's element offsets.
        if let last = steps.lastIndex(where: { if case .index = $0 { true } else { false } }),
            case .index(let index) = steps[last],
            let start = document.start(ofElement: index, ofArrayAt: Array(steps[..<last]))
        {
            return JSONSpan.compactText(at: steps[(last + 1)...], in: document.bytes, from: start)
        }
        return JSONSpan.compactText(at: steps[...], in: document.bytes, from: nil)
    }

    /// Reads a file as JSON (Foundation's `JSONDecoder` into `JSONValue`). Only a regular file: mapping files are
    /// mostly found in a folder, where a FIFO must not stop the import.
    /// - Throws: `WireMockImportError` `.unreadable` or `.notJSON`.
    static func read(_ url: URL, display: String) throws(WireMockImportError) -> WireMockNode {
        var data: Data
        do {
            data = try UserFile.read(url, from: .folder)
        } catch {
            throw WireMockImportError(.unreadable, file: display, message: "cannot read (\(error))")
        }
        do {
            data = try JSONTextEncoding.utf8(data)
        } catch {
            throw WireMockImportError(.notJSON, file: display, message: error.description)
        }
        // A UTF-8 byte order mark, as Windows editors write it, is not part of the JSON.
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data = data.dropFirst(3) }
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            throw WireMockImportError(.notJSON, file: display, message: "not valid JSON (the file is empty)")
        }
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let detail =
                (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
            var location = ""
            if let range = detail.range(of: "character ", options: .backwards),
                let offset = Int(detail[range.upperBound...].prefix { $0.isNumber }),
                offset <= data.count
            {
                location = " at line \(data.prefix(offset).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) })"
            }
            throw WireMockImportError(
                .notJSON,
                file: display,
                message: "not valid JSON\(location) (\(oneLine(detail)))"
            )
        }
        // WireMock (Jackson) keeps the last of two members with one name, Foundation's decoder the first: either
        // choice would import one mapping as the other reader sees it.
        if let duplicate = DuplicateKeyCheck.firstDuplicate(in: data) {
            throw WireMockImportError(
                .invalidMapping,
                file: display,
                jsonPath: duplicate.path,
                message:
                    duplicate.earlier == nil
                    ? "\(duplicate.phrase); WireMock keeps the last, other JSON readers the first: keep one"
                    : "\(duplicate.phrase), two to WireMock: rename one"
            )
        }
        do {
            return WireMockNode(
                value: try JSONDecoder().decode(JSONValue.self, from: data),
                file: display,
                path: "",
                document: Document(data)
            )
        } catch {
            throw WireMockImportError(
                .notJSON,
                file: display,
                message: "not valid JSON (\(oneLine(String(describing: error))))"
            )
        }
    }

    func childPath(_ key: String) -> String {
        let safe = key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "$" }
        let component = safe ? key : "[\"\(key)\"]"
        if path.isEmpty { return component }
        return safe ? "\(path).\(key)" : "\(path)\(component)"
    }

    /// The member `key` of this object, or `nil` when absent (or this is not an object).
    subscript(_ key: String) -> WireMockNode? {
        guard case .object(let members) = value, let child = members[key] else { return nil }
        return WireMockNode(
            value: child,
            file: file,
            path: childPath(key),
            document: document,
            steps: steps + [.key(key)]
        )
    }

    func element(_ index: Int, _ value: JSONValue) -> WireMockNode {
        WireMockNode(
            value: value,
            file: file,
            path: "\(path)[\(index)]",
            document: document,
            steps: steps + [.index(index)]
        )
    }

    func fail(_ message: String) -> WireMockImportError {
        WireMockImportError(.invalidMapping, file: file, jsonPath: path.isEmpty ? nil : path, message: message)
    }

    var typeName: String {
        switch value {
        case .null: return "null"
        case .bool: return "true or false"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    func object() throws(WireMockImportError) -> [String: JSONValue] {
        guard case .object(let members) = value else { throw fail("expected an object, got \(typeName)") }
        return members
    }

    /// Members in key order, as nodes.
    func members() throws(WireMockImportError) -> [(key: String, node: WireMockNode)] {
        try object().keys.sorted().map { ($0, self[$0]!) }
    }

    func array() throws(WireMockImportError) -> [WireMockNode] {
        guard case .array(let items) = value else { throw fail("expected an array, got \(typeName)") }
        return items.enumerated().map { element($0.offset, $0.element) }
    }

    func string() throws(WireMockImportError) -> String {
        guard case .string(let text) = value else { throw fail("expected a string, got \(typeName)") }
        return text
    }

    func bool() throws(WireMockImportError) -> Bool {
        guard case .bool(let flag) = value else { throw fail("expected true or false, got \(typeName)") }
        return flag
    }

    /// An integer; a number with a zero fraction (`2.0`) counts.
    var integer: Int? {
        switch value {
        case .int(let number): return Int(exactly: number)
        case .double(let number): return number.rounded() == number && abs(number) < 1e15 ? Int(number) : nil
        default: return nil
        }
    }

    func int() throws(WireMockImportError) -> Int {
        guard let number = integer else { throw fail("expected a whole number, got \(typeName)") }
        return number
    }

    func number() throws(WireMockImportError) -> Double {
        switch value {
        case .int(let number): return Double(number)
        case .double(let number): return number
        default: throw fail("expected a number, got \(typeName)")
        }
    }

    /// The value as written in messages: strings quoted, others as compact JSON.
    var quoted: String {
        if case .string(let text) = value { return "\"\(text)\"" }
        return (try? String(decoding: JSONValueEncoding.data(value), as: UTF8.self)) ?? typeName
    }
}
