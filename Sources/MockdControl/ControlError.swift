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

    /// An error with `message` made printable (`printable(_:)`): it often quotes what the client sent.
    public init(_ code: ControlErrorCode, _ message: String) {
        self.error = code.rawValue
        self.message = Self.printable(message)
    }

    /// Characters of one line of a message; a longer line is cut, saying how much was left out.
    public static let maxLineLength = 400
    /// Lines (problems) of one message; the rest are counted.
    public static let maxLines = 40

    /// `message` as short printable text, whatever the client sent for it to quote: control characters other than
    /// the line breaks between problems written as escapes (`\0`, `\r`, `\t`, `\u{1B}`), so a NUL or a CR LF in a
    /// name cannot cut or forge a line in a log or a terminal; each line at most `maxLineLength` characters and at
    /// most `maxLines` lines, so a 3 MiB value is not echoed back whole.
    public static func printable(_ message: String) -> String {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var text = ""
            var count = 0
            var cut = 0
            for scalar in line.unicodeScalars {
                if count >= maxLineLength {
                    cut += 1
                    continue
                }
                count += 1
                switch scalar.value {
                case 0: text += "\\0"
                case 0x09: text += "\\t"
                case 0x0D: text += "\\r"
                case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
                    text += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                default: text.unicodeScalars.append(scalar)
                }
            }
            return cut == 0 ? text : text + "… (\(cut) more characters)"
        }
        if lines.count > maxLines {
            let more = lines.count - maxLines
            lines = Array(lines.prefix(maxLines)) + ["… and \(more) more lines"]
        }
        return lines.joined(separator: "\n")
    }

    /// The code, when this version knows it.
    public var code: ControlErrorCode? { ControlErrorCode(rawValue: error) }
}
