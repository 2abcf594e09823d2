import Foundation
import MockdFormat

/// One GraphQL operation of a request, as mockd keys it: its operation name and its variables (normalised), not the
/// body's text — so whitespace, the order of `variables`' members, `variables: {}` against none, or a changed query
/// document never make a recorded operation miss.
///
/// Read from GraphQL over HTTP requests (graphql.github.io/graphql-over-http): `POST` with a JSON body
/// `{"query", "operationName", "variables", "extensions"}` (an array of them for a batch), `POST` with
/// `application/graphql` (the document alone), and `GET` with those members as query parameters (`variables` and
/// `extensions` as JSON). Apollo's automatic persisted queries send `extensions.persistedQuery.sha256Hash` instead
/// of the document; persisted documents send `documentId` (or Relay's `doc_id`).
struct GraphQLOperation: Sendable, Equatable {
    /// The operation's name: `operationName`, else the name of the document's only operation.
    let operationName: String?
    /// `query`, `mutation` or `subscription`, when the request carries the document.
    let operationType: String?
    /// The persisted query's SHA-256 (`extensions.persistedQuery.sha256Hash`) or persisted document id.
    let persistedQuery: String?
    /// The document with comments and insignificant whitespace removed, when it was sent.
    let document: String?
    /// The variables as canonical JSON (sorted keys, exact numbers, top-level `null`s left out); `{}` for none.
    let variables: Data

    /// What tells the operation apart, besides its variables: the name; without one, the persisted query; without
    /// that, the document itself.
    var identity: String {
        if let operationName { return operationName }
        if let persistedQuery { return "#" + persistedQuery }
        return "{" + (document ?? "") + "}"
    }

    /// The key a stub and a request agree on: `GetUser {"id":"7"}`.
    var key: String { identity + " " + String(decoding: variables, as: UTF8.self) }

    /// `query GetUser`, `operation #9f86…` for a persisted query without a name.
    var label: String {
        let name = operationName ?? persistedQuery.map { "#" + $0.prefix(12) } ?? "(anonymous)"
        return "\(operationType ?? "operation") \(name)"
    }

    /// The variables as a Foundation JSON object (numbers as parsed).
    var variablesObject: [String: Any] {
        (try? JSONSerialization.jsonObject(with: variables)) as? [String: Any] ?? [:]
    }
}

/// Reads GraphQL operations out of HTTP requests (see `GraphQLOperation`).
enum GraphQLRequest {
    /// The query parameters GraphQL over HTTP defines for `GET`: left out of a GraphQL stub's query key.
    static let queryParameters: Set<String> = [
        "query", "operationName", "variables", "extensions", "documentId", "doc_id",
    ]

    /// The request's operations (several for a batch), or `nil` when it is not a GraphQL request. Body rules of
    /// `normalizer` (ignored fields, value placeholders) run over the body (for `GET`, over `{"variables": …}`)
    /// before the variables are taken.
    static func operations(
        method: String,
        query rawQuery: Substring,
        body: Data,
        contentType: String?,
        normalizer: RequestNormalizer = .none
    ) -> [GraphQLOperation]? {
        switch method {
        case "GET", "HEAD":
            guard !rawQuery.isEmpty else { return nil }
            let pairs = URLEncoding.decodedQuery(rawQuery)
            func value(_ name: String) -> String? { pairs.first { $0.name == name }?.value }
            let document = value("query")
            let extensions = value("extensions").flatMap(jsonObject)
            let documentID = value("documentId") ?? value("doc_id")
            guard document != nil || persistedHash(extensions) != nil || documentID != nil else { return nil }
            var object: [String: Any] = [:]
            if let text = value("variables"), !text.isEmpty {
                guard let marked = ExactJSONNumbers.markingNumbers(Data(text.utf8)),
                    let variables = try? JSONSerialization.jsonObject(with: marked, options: [.fragmentsAllowed])
                else { return nil }
                object["variables"] = variables
            }
            if normalizer.hasBodyRules { object = normalizer.normalizeJSON(object) as? [String: Any] ?? object }
            return operation(
                document: document,
                name: value("operationName"),
                variables: object["variables"],
                persisted: persistedHash(extensions) ?? documentID
            ).map { [$0] }
        case "POST":
            let mediaType = MediaType.essence(of: contentType)
            if mediaType == "application/graphql" {
                return operation(
                    document: String(decoding: body, as: UTF8.self),
                    name: nil,
                    variables: nil,
                    persisted: nil
                ).map { [$0] }
            }
            guard let first = body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }),
                first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
                mayNameAnOperation(body),
                let marked = ExactJSONNumbers.markingNumbers(body),
                var root = try? JSONSerialization.jsonObject(with: marked)
            else { return nil }
            if normalizer.hasBodyRules { root = normalizer.normalizeJSON(root) }
            let items: [Any]
            if let batch = root as? [Any] {
                guard !batch.isEmpty else { return nil }
                items = batch
            } else {
                items = [root]
            }
            var operations: [GraphQLOperation] = []
            for item in items {
                guard let object = item as? [String: Any] else { return nil }
                let document = object["query"] as? String
                let extensions = object["extensions"] as? [String: Any]
                let documentID = (object["documentId"] ?? object["doc_id"]).map {
                    ExactJSONNumbers.number(in: "\($0)") ?? "\($0)"
                }
                guard document != nil || persistedHash(extensions) != nil || documentID != nil,
                    let operation = operation(
                        document: document,
                        name: object["operationName"] as? String,
                        variables: object["variables"],
                        persisted: persistedHash(extensions) ?? documentID
                    )
                else { return nil }
                operations.append(operation)
            }
            return operations
        default:
            return nil
        }
    }

    /// Whether a JSON body can name a GraphQL operation at all: a member an operation needs (`query`, `extensions`,
    /// `documentId`, `doc_id`) is spelt in it, or an escape (`\u…`) could spell one. A large JSON body that is not
    /// GraphQL is then never parsed to find out (a miss's report asks: a second or more per megabyte).
    static func mayNameAnOperation(_ body: Data) -> Bool {
        operationMembers.contains { ByteSearch.contains($0, in: body) }
    }

    private static let operationMembers = ["query\"", "extensions\"", "documentId\"", "doc_id\"", "\\u"].map {
        Array($0.utf8)
    }

    /// The operations of a live request (`HTTPRequest`).
    static func operations(of request: HTTPRequest, normalizer: RequestNormalizer = .none) -> [GraphQLOperation]? {
        operations(
            method: request.method,
            query: request.query,
            body: request.body,
            contentType: request.headers["content-type"],
            normalizer: normalizer
        )
    }

    /// The key of a request's operations (a batch's joined by a new line), or `nil` for a request that is not GraphQL.
    static func key(of operations: [GraphQLOperation]) -> String {
        operations.map(\.key).joined(separator: "\n")
    }

    /// The operation of a GraphQL request object as a WebSocket `subscribe` (`start`) message carries it in its
    /// `payload`: `{"query", "operationName", "variables", "extensions"}`; `nil` when it is not one.
    static func operation(payload: [String: Any]) -> GraphQLOperation? {
        let document = payload["query"] as? String
        let extensions = payload["extensions"] as? [String: Any]
        guard document != nil || persistedHash(extensions) != nil else { return nil }
        let variables = (payload["variables"] as? [String: Any]).flatMap { members -> Any? in
            guard let data = try? JSONSerialization.data(withJSONObject: members),
                let marked = ExactJSONNumbers.markingNumbers(data)
            else { return nil }
            return try? JSONSerialization.jsonObject(with: marked)
        }
        return operation(
            document: document,
            name: payload["operationName"] as? String,
            variables: variables,
            persisted: persistedHash(extensions)
        )
    }

    private static func jsonObject(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    private static func persistedHash(_ extensions: [String: Any]?) -> String? {
        (extensions?["persistedQuery"] as? [String: Any])?["sha256Hash"] as? String
    }

    /// The operation of one request item; `nil` when the variables are not an object (or null).
    private static func operation(
        document: String?,
        name: String?,
        variables: Any?,
        persisted: String?
    ) -> GraphQLOperation? {
        var members: [String: Any] = [:]
        switch variables {
        case nil, is NSNull: break
        case let object as [String: Any]: members = object.filter { !($0.value is NSNull) }
        default: return nil
        }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: members,
                options: [.sortedKeys, .withoutEscapingSlashes]
            )
        else { return nil }
        let parsed = document.map(GraphQLDocument.init)
        let operationName = name.flatMap { $0.isEmpty ? nil : $0 } ?? parsed?.soleOperation?.name
        let operationType =
            parsed.flatMap { document in
                operationName.map { name in document.operations.first { $0.name == name }?.type }
                    ?? document.soleOperation?.type
            }
        return GraphQLOperation(
            operationName: operationName,
            operationType: operationType,
            persistedQuery: persisted,
            document: parsed?.normalized,
            variables: ExactJSONNumbers.unmarkingNumbers(data)
        )
    }
}

/// What mockd reads of a GraphQL document (GraphQL spec §2.2): its operations' types and names, and the text without
/// comments and insignificant whitespace.
struct GraphQLDocument {
    struct Operation: Equatable {
        /// `query`, `mutation` or `subscription`.
        let type: String
        let name: String?
    }

    private(set) var operations: [Operation] = []
    private(set) var normalized = ""

    /// The document's only operation, if it has exactly one.
    var soleOperation: Operation? { operations.count == 1 ? operations[0] : nil }

    init(_ text: String) {
        let characters = Array(text.unicodeScalars)
        var tokens: [String] = []
        var index = 0
        var depth = 0
        // The keyword of the definition whose header is being read (`query`, `fragment`…), until its `{`.
        var header: String?
        var named = false
        func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || (scalar.isASCII && CharacterSet.alphanumerics.contains(scalar))
        }
        func openOperation(named name: String?) {
            guard let type = header, ["query", "mutation", "subscription"].contains(type), !named else { return }
            operations.append(Operation(type: type, name: name))
            named = true
        }
        while index < characters.count {
            let scalar = characters[index]
            if scalar == "#" {
                while index < characters.count, characters[index] != "\n", characters[index] != "\r" { index += 1 }
                continue
            }
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == ","
                || scalar == "\u{FEFF}"
            {
                index += 1
                continue
            }
            if scalar == "\"" {
                // A string or a block string, kept as written.
                let start = index
                let block =
                    index + 2 < characters.count && characters[index + 1] == "\"" && characters[index + 2] == "\""
                index += block ? 3 : 1
                while index < characters.count {
                    if block {
                        if characters[index] == "\\", index + 3 < characters.count, characters[index + 1] == "\"" {
                            index += 4
                            continue
                        }
                        if index + 2 < characters.count, characters[index] == "\"", characters[index + 1] == "\"",
                            characters[index + 2] == "\""
                        {
                            index += 3
                            break
                        }
                    } else {
                        if characters[index] == "\\" {
                            index += 2
                            continue
                        }
                        if characters[index] == "\"" {
                            index += 1
                            break
                        }
                    }
                    index += 1
                }
                tokens.append(String(String.UnicodeScalarView(characters[start..<min(index, characters.count)])))
                continue
            }
            if isNameCharacter(scalar) {
                let start = index
                while index < characters.count, isNameCharacter(characters[index]) { index += 1 }
                let word = String(String.UnicodeScalarView(characters[start..<index]))
                if depth == 0 {
                    if header == nil {
                        header = word
                        named = false
                    } else if tokens.last == header {
                        openOperation(named: word)
                    }
                }
                tokens.append(word)
                continue
            }
            switch scalar {
            case "{":
                if depth == 0 {
                    if header == nil {
                        operations.append(Operation(type: "query", name: nil))  // the query shorthand `{ … }`
                    } else {
                        openOperation(named: nil)
                        // `query { … }` is the shorthand `{ … }` written out (GraphQL spec §2.3): one text for both.
                        if header == "query", tokens.last == "query" { tokens.removeLast() }
                    }
                    header = nil
                }
                depth += 1
            case "}", ")", "]":
                depth = max(0, depth - 1)
            case "(", "[":
                if depth == 0 { openOperation(named: nil) }
                depth += 1
            case "@":
                if depth == 0 { openOperation(named: nil) }
            default:
                break
            }
            tokens.append(String(scalar))
            index += 1
        }
        // Words and numbers need a space between them; punctuation does not.
        var text = ""
        for token in tokens {
            if let last = text.unicodeScalars.last, isNameCharacter(last), let first = token.unicodeScalars.first,
                isNameCharacter(first) || first == "\""
            {
                text += " "
            }
            text += token
        }
        normalized = text
    }
}

extension GraphQLOperation {
    /// A stub's operation as its index file gives it (`request.graphql`).
    /// - Throws: `PatternError` when it names neither an operation, a persisted query nor a document, or its
    ///   variables are not an object.
    init(entry: GraphQLEntry) throws(PatternError) {
        let document = entry.document.map(GraphQLDocument.init)
        let name = entry.operationName.flatMap { $0.isEmpty ? nil : $0 } ?? document?.soleOperation?.name
        guard name != nil || entry.persistedQuery != nil || document != nil else {
            throw PatternError(message: #"give "operationName", "persistedQuery" or "document""#)
        }
        var object: [String: Any] = [:]
        switch entry.variables {
        case nil, .null?: break
        case .object?:
            guard let data = try? JSONValueEncoding.data(entry.variables!),
                let marked = ExactJSONNumbers.markingNumbers(data),
                let members = try? JSONSerialization.jsonObject(with: marked) as? [String: Any]
            else { throw PatternError(message: "variables: not JSON") }
            object = members.filter { !($0.value is NSNull) }
        default:
            throw PatternError(message: "variables: must be an object of the operation's variables")
        }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object,
                options: [.sortedKeys, .withoutEscapingSlashes]
            )
        else { throw PatternError(message: "variables: not JSON") }
        self.init(
            operationName: name,
            operationType: entry.operationType
                ?? name.flatMap { name in document?.operations.first { $0.name == name }?.type }
                ?? document?.soleOperation?.type,
            persistedQuery: entry.persistedQuery,
            document: document?.normalized,
            variables: ExactJSONNumbers.unmarkingNumbers(data)
        )
    }

    /// The operation with `normalizer`'s body rules run over `{"variables": …}`, as a request's body is (its
    /// `variables` member): a stub's key under a scenario's rules.
    func normalized(by normalizer: RequestNormalizer) -> GraphQLOperation {
        guard normalizer.hasBodyRules, let marked = ExactJSONNumbers.markingNumbers(variables),
            let members = try? JSONSerialization.jsonObject(with: marked) as? [String: Any],
            let wrapped = normalizer.normalizeJSON(["variables": members]) as? [String: Any],
            let data = try? JSONSerialization.data(
                withJSONObject: (wrapped["variables"] as? [String: Any] ?? [:]).filter { !($0.value is NSNull) },
                options: [.sortedKeys, .withoutEscapingSlashes]
            )
        else { return self }
        return GraphQLOperation(
            operationName: operationName,
            operationType: operationType,
            persistedQuery: persistedQuery,
            document: document,
            variables: ExactJSONNumbers.unmarkingNumbers(data)
        )
    }
}

extension GraphQLRequest {
    /// A query string in canonical form (`RequestKey.normalizeQuery`) without the parameters GraphQL over HTTP defines:
    /// the part of a `GET` GraphQL request's query a stub's key holds.
    static func otherQuery<Q: StringProtocol>(_ rawQuery: Q, normalizer: RequestNormalizer = .none) -> String {
        guard !rawQuery.isEmpty else { return "" }
        return RequestKey.queryPairs(rawQuery, normalizer: normalizer).filter { !queryParameters.contains($0.name) }
            .map { $0.value.isEmpty ? $0.name : "\($0.name)=\($0.value)" }.joined(separator: "&")
    }
}

extension GraphQLOperation {
    /// How a request's operation differs from this (a stub's) one, for near misses: the identity (name, persisted query
    /// or document), else each variable that differs (at most `limit`, by path: `variables.input.email`), as
    /// `(expected, actual)` texts: `("operation GetUser: variables.id = 7", "variables.id = 8")`.
    func differences(from actual: GraphQLOperation, limit: Int = 3) -> [(expected: String, actual: String)] {
        if identity != actual.identity {
            // Anonymous operations keyed by their documents: the labels alike, the documents tell them apart.
            if label == actual.label, operationName == nil, persistedQuery == nil {
                return [("\(label): document \(Self.excerpt(document))", "document \(Self.excerpt(actual.document))")]
            }
            return [(label, actual.label)]
        }
        let expectedLeaves = GraphQLOperation.leaves(variablesObject, path: "variables")
        let actualLeaves = GraphQLOperation.leaves(actual.variablesObject, path: "variables")
        var result: [(String, String)] = []
        for path in Set(expectedLeaves.keys).union(actualLeaves.keys).sorted()
        where expectedLeaves[path] != actualLeaves[path] {
            result.append(
                (
                    "\(label): \(path) = \(expectedLeaves[path] ?? "(absent)")",
                    "\(path) = \(actualLeaves[path] ?? "(absent)")"
                )
            )
            if result.count == limit { break }
        }
        return result
    }

    /// A normalised document as a near miss shows it: at most 100 characters.
    static func excerpt(_ document: String?) -> String {
        guard let document else { return "(none)" }
        return document.count > 100 ? document.prefix(99) + "…" : document
    }

    /// Every scalar (and empty container) of `value` by dot path with `[i]`, as JSON text.
    static func leaves(_ value: Any, path: String) -> [String: String] {
        if let object = value as? [String: Any], !object.isEmpty {
            var result: [String: String] = [:]
            for (key, member) in object { result.merge(leaves(member, path: path + "." + key)) { $1 } }
            return result
        }
        if let array = value as? [Any], !array.isEmpty {
            var result: [String: String] = [:]
            for (index, item) in array.enumerated() { result.merge(leaves(item, path: "\(path)[\(index)]")) { $1 } }
            return result
        }
        if path == "variables", (value as? [String: Any])?.isEmpty == true { return [:] }
        let text = try? JSONSerialization.data(
            withJSONObject: value,
            options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]
        )
        return [path: text.map { String(decoding: $0, as: UTF8.self) } ?? "null"]
    }
}
