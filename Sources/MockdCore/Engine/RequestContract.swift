public import Foundation

/// An API contract the app's requests and the answers mockd gave them are checked against (`mockd --openapi SPEC`),
/// for the journal's `contractViolations`, `GET /__mockd/contract` and `POST /__mockd/verify` with `"contract": true`.
///
/// Checked when the journal is read, from the journaled exchange (the request's method, target, headers and body; the
/// answer's status, headers and body), never on the request's way: serving costs the same with or without a contract.
public protocol RequestContract: Sendable {
    /// The ways the request breaks the contract, one line each (`request body: $.sku: expected string, got
    /// integer`); empty when it honours it.
    ///
    /// - Parameters:
    ///   - target: The raw request-target: path and query as sent.
    ///   - body: The whole body (the caller skips the body check of a request journaled cut).
    func violations(method: String, target: String, headers: [(name: String, value: String)], body: Data) -> [String]

    /// The ways an answer to `method` `target` breaks the contract, one line each (`status: 418 is not documented
    /// (documented: 200, 404)`, `response body: $.id: expected integer, got string`); empty when it honours it, or when
    /// the contract has no such operation (the request's own check says so).
    ///
    /// - Parameters:
    ///   - headers: The answer's header fields (its `Content-Type` decides the media type).
    ///   - body: The whole body as sent, or `nil` when it is not known (the journal kept it cut): the body is not checked.
    func answerViolations(
        method: String,
        target: String,
        status: Int,
        headers: [(name: String, value: String)],
        body: Data?
    ) -> [String]
}
