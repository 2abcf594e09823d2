public import Foundation

/// An API contract the app's requests are checked against (`mockd --openapi SPEC`), for the journal's
/// `contractViolations`, `GET /__mockd/contract` and `POST /__mockd/verify` with `"contract": true`.
///
/// Checked when the journal is read, from the journaled request (method, target, headers, body), never on the
/// request's way: serving costs the same with or without a contract.
public protocol RequestContract: Sendable {
    /// The ways the request breaks the contract, one line each (`request body: $.sku: expected string, got
    /// integer`); empty when it honours it.
    ///
    /// - Parameters:
    ///   - target: The raw request-target: path and query as sent.
    ///   - body: The whole body (the caller skips the body check of a request journaled cut).
    func violations(method: String, target: String, headers: [(name: String, value: String)], body: Data) -> [String]
}
