import Foundation

/// The JSON body of a 404 for an unmatched request.
struct UnmatchedReport {
    let request: HTTPRequest
    let reason: String?
    let nearMisses: [NearMiss]

    func jsonData() -> Data {
        let key = RequestKey(request)
        let object: [String: Any] = [
            "error": "unmatched",
            "message": reason ?? "No stub matches \(request.method) \(request.target)",
            "request": ["method": request.method, "path": key.path, "query": key.query],
            "nearMisses": nearMisses.map(\.jsonObject),
        ]
        let data = try? JSONSerialization.data(
            withJSONObject: object,
            options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        )
        return (data ?? Data("{\"error\":\"unmatched\"}".utf8)) + Data("\n".utf8)
    }
}
