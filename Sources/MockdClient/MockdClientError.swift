public import Foundation

/// What a `MockdClient` call throws besides transport errors (`URLError`, passed through unchanged).
public enum MockdClientError: LocalizedError, Sendable, Equatable, CustomStringConvertible {
    /// The daemon answered 4xx/5xx with its error body `{"error": code, "message": text}`:
    /// e.g. 404 `unknown_scenario`, 422 `invalid_scenario`, 400 `invalid_stub`, 404 `unknown_stub`,
    /// 401 `unauthorized` (missing or wrong control token), 400 `invalid_session`.
    case server(status: Int, code: String, message: String)
    /// `verify` found a different number of matching requests (409 `verification_failed`).
    /// `expected` is the count (or minimum) asked for, `actual` how many the journal holds.
    case verificationFailed(message: String, expected: Int, actual: Int)
    /// The answer was not what the control API sends (not HTTP, not JSON, missing fields…).
    case invalidResponse(String)
    /// A `wait…` call gave up: what it waited for.
    case timedOut(String)

    /// The server's message (prefixed with its status and code), or what was wrong with the answer.
    public var description: String {
        switch self {
        case .server(let status, let code, let message): return "mockd \(status) \(code): \(message)"
        case .verificationFailed(let message, _, _): return "mockd verification failed: \(message)"
        case .invalidResponse(let text): return "mockd sent an unexpected answer: \(text)"
        case .timedOut(let text): return "mockd: timed out: \(text)"
        }
    }

    /// The same as `description`, for harnesses that log `localizedDescription`.
    public var errorDescription: String? { description }
}
