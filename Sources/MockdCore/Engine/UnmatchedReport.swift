import Foundation
import MockdControl

/// The JSON body of a 404 for an unmatched request.
struct UnmatchedReport: Encodable {
    /// The request as its key sees it.
    struct Request: Encodable {
        let method: String
        let path: String
        let query: String
    }

    let error = "unmatched"
    let message: String
    let request: Request
    let nearMisses: [NearMiss]

    init(request: HTTPRequest, reason: String?, nearMisses: [NearMiss]) {
        let key = RequestKey(request)
        message = reason ?? "No stub matches \(request.method) \(request.target)"
        self.request = Request(method: request.method, path: key.path, query: key.query)
        self.nearMisses = nearMisses
    }

    func jsonData() -> Data {
        (try? ControlOpenAPI.encoded(self)) ?? Data("{\"error\":\"unmatched\"}\n".utf8)
    }
}
