import Foundation
import MockdFormat

/// Compiles `resources[]` entries into `Resource`s once the scenario's mock sets are loaded (a seed may be a stub's
/// recorded answer), reporting every problem as `file: resources[i].field: message`.
struct ResourceCompiler {
    let root: MockdRoot
    let index: StubIndex

    func compile(_ entry: ResourceEntry, file: String, path: String, problems: inout [ConfigError]) -> Resource? {
        let before = problems.count
        func fail(_ field: String, _ message: String) {
            problems.append(ConfigError(.invalidValue, file: file, jsonPath: "\(path).\(field)", message: message))
        }
        if entry.name.isEmpty
            || !entry.name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        {
            fail("name", "'\(entry.name)' must be letters, digits, '-' or '_'")
        }
        var collectionPath = entry.path
        while collectionPath.count > 1 && collectionPath.hasSuffix("/") { collectionPath.removeLast() }
        if !collectionPath.hasPrefix("/") || collectionPath == "/" || collectionPath.contains("{")
            || collectionPath.contains("?")
        {
            fail("path", "'\(entry.path)' must be a collection path such as /v1/orders (no query, no {templates})")
        }
        var document: JSONValue?
        var tokens: [String] = []
        var seed: [JSONValue] = []
        let seedBefore = problems.count
        if let entrySeed = entry.seed {
            if let inline = entrySeed.inline {
                seed = inline
            } else {
                if let pointer = entrySeed.items {
                    if let parsed = Resource.pointerTokens(pointer) {
                        tokens = parsed
                    } else {
                        fail("seed.items", "'\(pointer)' is not a JSON pointer (RFC 6901: \"\" or /a/b)")
                    }
                }
                var data: Data?
                switch (entrySeed.bodyFile, entrySeed.stub) {
                case (let bodyFile?, nil):
                    do {
                        data = try BodyFileReader(folder: root.mocksURL)
                            .read(bodyFile, indexName: file, jsonPath: "\(path).seed.bodyFile")
                    } catch let error as ConfigError {
                        problems.append(error)
                    } catch {
                        fail("seed.bodyFile", "\(error)")
                    }
                case (nil, let stubID?):
                    if let stub = index.stubs.first(where: { $0.id == stubID }) {
                        data = stub.firstResponse.body
                    } else {
                        fail("seed.stub", "no stub '\(stubID)' in the scenario's mock sets")
                    }
                default:
                    fail("seed", #"give an array of items, {"bodyFile": …} or {"stub": …}"#)
                }
                if let data, problems.count == seedBefore {
                    if let json = try? JSONDecoder().decode(JSONValue.self, from: data) {
                        if case .array(let items)? = Resource.value(at: tokens, in: json) {
                            seed = items
                            document = tokens.isEmpty ? nil : json
                        } else {
                            fail("seed.items", "'\(entrySeed.items ?? "")' does not lead to an array in the seed")
                        }
                    } else {
                        fail("seed", "the seed's body is not JSON")
                    }
                }
            }
        }
        let idField = entry.id ?? "id"
        let draft = Resource(
            name: entry.name,
            path: collectionPath,
            idField: idField,
            seed: [],
            document: nil,
            pointer: [],
            paging: nil,
            actions: []
        )
        var seen: Set<String> = []
        for (position, item) in seed.enumerated() {
            guard let id = draft.id(of: item) else {
                fail("seed", "item \(position) is not an object with a string or whole-number '\(idField)'")
                continue
            }
            if !seen.insert(id).inserted { fail("seed", "items share the id '\(id)'") }
        }
        var actions: [Resource.Action] = []
        for (position, action) in (entry.actions ?? []).enumerated() {
            let method = (action.method ?? "POST").uppercased()
            if action.path.isEmpty || action.path.contains("/") {
                fail("actions[\(position)].path", "'\(action.path)' must be one path segment, such as cancel")
            }
            guard case .object = action.patch else {
                fail("actions[\(position)].patch", "must be a JSON object (RFC 7386 merge patch)")
                continue
            }
            actions.append(Resource.Action(method: method, path: action.path, patch: action.patch))
        }
        if let paging = entry.paging, let first = paging.firstPage, first < 0 {
            fail("paging.firstPage", "must be ≥ 0")
        }
        guard problems.count == before else { return nil }
        return Resource(
            name: entry.name,
            path: collectionPath,
            idField: idField,
            seed: seed,
            document: document,
            pointer: tokens,
            paging: entry.paging,
            actions: actions
        )
    }
}
