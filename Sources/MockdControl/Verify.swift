public import MockdFormat

/// The body of `POST /__mockd/verify`: a count (`count`, exactly, or `atLeast`) of journaled requests for `path`
/// (`method` and `host` when given); or `{"contract": true}` (with `mockd --openapi`), optionally narrowed by `method`
/// and `path` (which may be the document's template, `/v1/pets/{petId}`).
public struct VerifyRequest: Codable, Sendable, Equatable {
    public var method: String?
    /// The exact path, compared without the query; it starts with `/`.
    public var path: String?
    /// The recorded host the requests were for, `api.example.com`.
    public var host: String?
    /// Exactly this many, 0…10⁹.
    public var count: Int?
    /// At least this many, 0…10⁹.
    public var atLeast: Int?
    /// `true` checks every journaled request (and the answer it got) against the contract instead.
    public var contract: Bool?

    public init(
        method: String? = nil,
        path: String? = nil,
        host: String? = nil,
        count: Int? = nil,
        atLeast: Int? = nil,
        contract: Bool? = nil
    ) {
        self.method = method
        self.path = path
        self.host = host
        self.count = count
        self.atLeast = atLeast
        self.contract = contract
    }
}

extension VerifyRequest: ControlSchemaNotes {
    public static var propertyNotes: [String: JSONValue] {
        [
            "path": ["pattern": "^/"], "count": ["minimum": 0, "maximum": 1_000_000_000],
            "atLeast": ["minimum": 0, "maximum": 1_000_000_000],
        ]
    }

    /// The rule between the fields, in words, so that the body stays one plain object for client generators (a
    /// `oneOf` of `required` lists would state it exactly, at the cost of a union type in every generated client).
    public static var typeNotes: JSONValue {
        [
            "description": .string(
                "Either path with exactly one of count and atLeast (method and host narrow it), or contract: true "
                    + "(method and path narrow it; path may be the --openapi document's template). Anything else is "
                    + "400 bad_request."
            )
        ]
    }
}

/// The answer to a passing `POST /__mockd/verify`.
public struct VerifyResult: Codable, Sendable, Equatable {
    /// `true`.
    public var ok: Bool
    /// How many journaled requests matched (a count).
    public var count: Int?
    /// How many journaled requests were checked (a contract).
    public var checked: Int?

    public init(ok: Bool = true, count: Int? = nil, checked: Int? = nil) {
        self.ok = ok
        self.count = count
        self.checked = checked
    }
}

/// A journaled request close to what a failed verify asked for, and the parts (`method`, `host`, `path`) that
/// differed.
public struct VerifyCandidate: Codable, Sendable, Equatable {
    public var sequence: Int
    public var method: String
    public var target: String
    @ExplicitNull public var host: String?
    public var differs: [NearMiss.Difference]

    public init(sequence: Int, method: String, target: String, host: String?, differs: [NearMiss.Difference]) {
        self.sequence = sequence
        self.method = method
        self.target = target
        self.host = host
        self.differs = differs
    }
}

/// The 409 `verification_failed` of `POST /__mockd/verify`: the evidence.
public struct VerificationFailure: Codable, Sendable, Equatable {
    /// `verification_failed`.
    public var error: String
    /// `expected exactly 1 POST /v1/orders, journal has 0; closest: PUT /v1/orders (method: expected POST, got PUT)`.
    public var message: String
    /// The count (or minimum) asked for.
    public var expected: Int
    /// How many the journal holds.
    public var actual: Int
    /// The matching requests.
    public var requests: [JournalEntry]
    /// The closest journaled requests that differ in the fewest of method, host and path.
    public var nearest: [VerifyCandidate]
    /// How many entries the journal holds.
    public var journalCount: Int

    public init(
        message: String,
        expected: Int,
        actual: Int,
        requests: [JournalEntry],
        nearest: [VerifyCandidate],
        journalCount: Int
    ) {
        self.error = ControlErrorCode.verificationFailed.rawValue
        self.message = message
        self.expected = expected
        self.actual = actual
        self.requests = requests
        self.nearest = nearest
        self.journalCount = journalCount
    }
}

/// A journaled request that breaks the contract (`mockd --openapi`), or whose answer does.
public struct ViolatingRequest: Codable, Sendable, Equatable {
    public var sequence: Int
    public var method: String
    public var target: String
    /// One line per violation, the request's then the answer's.
    public var violations: [String]

    public init(sequence: Int, method: String, target: String, violations: [String]) {
        self.sequence = sequence
        self.method = method
        self.target = target
        self.violations = violations
    }
}

/// `GET /__mockd/contract`: the session's exchanges that break the contract.
public struct ContractReport: Codable, Sendable, Equatable {
    public var session: String
    /// Journal entries checked.
    public var checked: Int
    /// How many of them break the contract.
    public var violating: Int
    public var requests: [ViolatingRequest]

    public init(session: String, checked: Int, requests: [ViolatingRequest]) {
        self.session = session
        self.checked = checked
        self.violating = requests.count
        self.requests = requests
    }
}

/// The 409 `contract_violated` (or `nothing_checked`) of `POST /__mockd/verify` with `{"contract": true}`.
public struct ContractFailure: Codable, Sendable, Equatable {
    /// `contract_violated` or `nothing_checked`.
    public var error: String
    public var message: String
    /// Journal entries checked.
    public var checked: Int
    /// The requests that break the contract (not for `nothing_checked`).
    public var requests: [ViolatingRequest]?

    public init(_ code: ControlErrorCode, message: String, checked: Int, requests: [ViolatingRequest]?) {
        self.error = code.rawValue
        self.message = message
        self.checked = checked
        self.requests = requests
    }
}
