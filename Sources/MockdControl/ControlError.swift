/// Every error the control API answers with, each with its one status.
public enum ControlErrorCode: String, CaseIterable, Codable, Sendable, ControlSchemaEnum {
    /// A body, query parameter or path segment the route cannot use; the message names it.
    case badRequest = "bad_request"
    /// A session id that is not 1–128 letters, digits, `-`, `.`, `_` or `~`.
    case invalidSession = "invalid_session"
    /// A stub the daemon refuses (`POST /__mockd/stubs`, a group's `stubs[N]`); one line per problem.
    case invalidStub = "invalid_stub"
    /// A group name that is not 1–128 letters, digits, `-`, `.`, `_` or `~`.
    case invalidGroup = "invalid_group"
    case invalidClock = "invalid_clock"
    case invalidSwitches = "invalid_switches"
    /// No `Authorization: Bearer <token>`, or another token (`--control-token`).
    case unauthorized
    /// A request a web page may have sent (DNS rebinding, cross-site, a CORS preflight).
    case forbidden
    /// No control route has that path.
    case notFound = "not_found"
    case unknownScenario = "unknown_scenario"
    case unknownStub = "unknown_stub"
    case unknownGroup = "unknown_group"
    case unknownAnswer = "unknown_answer"
    case unknownResource = "unknown_resource"
    /// A journal entry reset away or dropped by `--journal-limit`.
    case unknownEntry = "unknown_entry"
    /// The daemon was started without `--openapi`.
    case noContract = "no_contract"
    /// Nothing is being recorded (`mockd record`, `--record-misses`).
    case notRecording = "not_recording"
    /// The route exists with other methods (the `Allow` header lists them).
    case methodNotAllowed = "method_not_allowed"
    /// `POST /__mockd/verify`: the journal holds another count (`VerificationFailure`).
    case verificationFailed = "verification_failed"
    /// `POST /__mockd/verify {"contract": true}`: requests break the contract (`ContractFailure`).
    case contractViolated = "contract_violated"
    /// `POST /__mockd/verify {"contract": true}` narrowed to requests the journal does not hold (`ContractFailure`).
    case nothingChecked = "nothing_checked"
    /// The session was evicted by `--max-sessions`; `POST /__mockd/reset` starts it again.
    case sessionEvicted = "session_evicted"
    /// A request body over `--max-body`.
    case payloadTooLarge = "payload_too_large"
    /// A scenario file that does not load (the message has every problem).
    case invalidScenario = "invalid_scenario"
    /// Writing the recording failed (the disk refused).
    case flushFailed = "flush_failed"
    /// The daemon was started without files to reload.
    case reloadUnavailable = "reload_unavailable"
    /// `POST /__mockd/emit` on an engine that runs without a server to push from (a library caller's engine).
    case pushesUnavailable = "pushes_unavailable"
    /// `JournalFeed.maxOpen` live journals are open.
    case tooManyStreams = "too_many_streams"
    /// A bug in mockd: an answer it could not make. Declared by no route; a fuzzer that meets it has found a defect.
    case internalError = "internal_error"

    /// The HTTP status the code is sent with.
    public var status: Int {
        switch self {
        case .badRequest, .invalidSession, .invalidStub, .invalidGroup, .invalidClock, .invalidSwitches: return 400
        case .unauthorized: return 401
        case .forbidden: return 403
        case .notFound, .unknownScenario, .unknownStub, .unknownGroup, .unknownAnswer, .unknownResource, .unknownEntry,
            .noContract, .notRecording:
            return 404
        case .methodNotAllowed: return 405
        case .verificationFailed, .contractViolated, .nothingChecked: return 409
        case .sessionEvicted: return 410
        case .payloadTooLarge: return 413
        case .invalidScenario: return 422
        case .flushFailed, .internalError: return 500
        case .reloadUnavailable, .pushesUnavailable: return 501
        case .tooManyStreams: return 503
        }
    }

    /// The type of the error body: `ControlError` but for the failures that carry their evidence.
    public var bodyType: any (Codable & Sendable).Type {
        switch self {
        case .verificationFailed: return VerificationFailure.self
        case .contractViolated, .nothingChecked: return ContractFailure.self
        default: return ControlError.self
        }
    }
}

/// The body of every control API error: `{"error": code, "message": one line (or one line per problem)}`.
///
/// `error` is a `ControlErrorCode`'s raw value; it is kept as a string so that a client reads a code a newer daemon
/// added.
public struct ControlError: Codable, Sendable, Equatable, Error {
    public var error: String
    public var message: String

    public init(_ code: ControlErrorCode, _ message: String) {
        self.error = code.rawValue
        self.message = message
    }

    /// The code, when this version knows it.
    public var code: ControlErrorCode? { ControlErrorCode(rawValue: error) }
}
