public import Foundation

/// `GET /__mockd/health`.
public struct Health: Decodable, Sendable, Equatable {
    /// `"ok"`.
    public let status: String
    /// The daemon's version, `"0.1.0"`.
    public let version: String
    /// Seconds since the daemon started.
    public let uptimeSeconds: Double
    /// The scenario the daemon was started with (new sessions begin with it); for a mock set served alone
    /// (`mockd --set NAME`), the set's name, as `set` says.
    public let scenario: String
    /// The mock set the daemon serves alone (`mockd --set NAME`); `nil` when it serves a scenario.
    public let set: String?
    /// How many sessions exist (the default one included).
    public let sessions: Int
    /// Requests being answered now besides the health check itself (waiting on latency, a hold or the upstream
    /// included); `nil` from a daemon that does not count them.
    public let inFlight: Int?
}

/// One entry of `GET /__mockd/scenarios`: a `configs/NAME.json` under the daemon's root.
public struct ScenarioInfo: Decodable, Sendable, Equatable {
    public let name: String
    /// Whether this is the scenario of the client's session.
    public let active: Bool
    public let description: String?
    /// Why the file does not load, when it does not (`nil` for a usable scenario).
    public let problem: String?
}

/// The answer to `PUT /__mockd/scenario`.
public struct ActiveScenario: Decodable, Sendable, Equatable {
    public let session: String
    public let name: String
    /// The mock sets the scenario serves from, in order (later ones win).
    public let sets: [String]

    public init(session: String, name: String, sets: [String]) {
        self.session = session
        self.name = name
        self.sets = sets
    }
}

/// A runtime stub as listed by `GET /__mockd/stubs`.
public struct RuntimeStub: Decodable, Sendable, Equatable {
    public let id: String
    /// The stub JSON as the daemon holds it.
    public let definition: JSONValue

    public init(id: String, definition: JSONValue) {
        self.id = id
        self.definition = definition
    }
}

/// One request the app sent to the mocked API (`GET /__mockd/journal`), oldest first.
public struct JournalEntry: Decodable, Sendable, Equatable {
    /// 1-based, increasing within the session.
    public let sequence: Int
    /// When the request arrived: RFC 3339 UTC with milliseconds, `2026-11-29T20:42:46.369Z`.
    public let time: String
    public let method: String
    /// The raw request target: path plus `?query` when present.
    public let target: String
    /// The recorded host the request was for (`api.example.com`): the one it named, else the answering stub's;
    /// `nil` when neither says (sets recorded from one host) or from an older mockd.
    public let host: String?
    /// Request header fields in order, `"Name: value"`.
    public let headers: [String]
    /// Body length in bytes.
    public let bodySize: Int
    /// The body when it is UTF-8 text.
    public let body: String?
    /// The body, Base64, when it is not UTF-8.
    public let bodyBase64: String?
    /// Whether a stub or override answered.
    public let matched: Bool
    /// Whether the upstream answered (`--on-miss proxy`, `mockd record`) instead of a stub; `nil` from an
    /// older mockd that did not report it.
    public let proxied: Bool?
    /// The id of the stub or override that answered; `nil` when unmatched.
    public let stub: String?
    /// What that answer edited, nearest first, when it only edited (a pass-through `{}`, a `bodyPatch`, a latency): a
    /// scenario override under a runtime stub, then the mock set's stub (`GET_v1_me`) or resource (`resource:orders`).
    /// `nil` when the answer was the stub's own, or from an older mockd.
    public let edited: [String]?
    /// The status sent; `nil` when a fault meant none was sent.
    public let status: Int?
    /// The fault injected (`connectionReset`, …), if any.
    public let fault: String?
    /// Time from arrival to the answer, in milliseconds (latency and throttling included).
    public let durationMs: Double
    /// For a push (`WS-OUT`, `SSE-OUT`, `WEBHOOK`) or a `STATE` change: the sequence number of the request (or the app's
    /// WebSocket message) that caused it; `nil` otherwise.
    public let causedBy: Int?
    /// What the fields alone do not say: how a client fault reached the app (raised by `MockdAppRedirect` or its wire
    /// fallback), why a push reached no connection, why a webhook got no answer.
    public let note: String?

    /// `time` as a `Date` (`nil` if it does not parse).
    public var date: Date? {
        try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(time)
    }

    /// `target` without its query.
    public var path: String {
        target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
    }

    /// The body bytes (empty when there was none).
    public var bodyData: Data {
        if let body { return Data(body.utf8) }
        if let bodyBase64, let data = Data(base64Encoded: bodyBase64) { return data }
        return Data()
    }

    /// The value of the first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        for line in headers {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}

/// A request no stub answered (`GET /__mockd/unmatched`) with the stubs that came closest.
///
/// The journal fields are reachable directly: `request.method`, `request.target` (dynamic member lookup).
@dynamicMemberLookup
public struct UnmatchedRequest: Decodable, Sendable, Equatable {
    /// The journal entry of the request.
    public let entry: JournalEntry
    /// The closest stubs, best first.
    public let nearMisses: [NearMiss]

    public subscript<Value>(dynamicMember keyPath: KeyPath<JournalEntry, Value>) -> Value {
        entry[keyPath: keyPath]
    }

    private enum CodingKeys: String, CodingKey { case nearMisses }

    public init(from decoder: any Decoder) throws {
        entry = try JournalEntry(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        nearMisses = try container.decodeIfPresent([NearMiss].self, forKey: .nearMisses) ?? []
    }
}

/// A stub that almost matched an unmatched request.
public struct NearMiss: Decodable, Sendable, Equatable {
    /// The stub or override id.
    public let stub: String
    /// The mock set it belongs to (`nil` for overrides and runtime stubs).
    public let set: String?
    /// 0 (identical) … 1 (nothing alike).
    public let distance: Double
    /// What differed.
    public let differs: [Difference]
    /// The override's priority, when it is one.
    public let priority: Int?
}

/// One part of a request that differed from a stub.
public struct Difference: Decodable, Sendable, Equatable {
    /// `method`, `path`, `query`, `header …`, `body`…
    public let part: String
    /// What the stub wants.
    public let expected: String?
    /// What the request had.
    public let actual: String?

    public init(part: String, expected: String?, actual: String?) {
        self.part = part
        self.expected = expected
        self.actual = actual
    }
}

/// The answer to a passing `POST /__mockd/verify`.
struct VerifyResult: Decodable {
    let ok: Bool
    let count: Int
}

/// The error body of the control API.
struct ServerError: Decodable {
    let error: String
    let message: String
    let expected: Int?
    let actual: Int?
}
