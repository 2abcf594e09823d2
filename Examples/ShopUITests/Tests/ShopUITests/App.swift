import Foundation
import MockdClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the app under test does on the wire, reduced to what the tests need: its requests carry the session of the
/// launch environment (`MOCKD_BASE_URL`, `MOCKD_SESSION`), as the app-side library would add it.
struct ShopApp {
    let baseURL: URL
    let session: String

    init(launchEnvironment: [String: String]) {
        baseURL = URL(string: launchEnvironment[MockdClient.baseURLEnvironmentKey]!)!
        session = launchEnvironment[MockdClient.sessionEnvironmentKey]!
    }

    /// Sends one request; the status and body.
    func send(_ method: String, _ path: String) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: baseURL.appendingPathComponent(String(path.dropFirst())))
        request.httpMethod = method
        request.setValue(session, forHTTPHeaderField: MockdClient.sessionHeader)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    func get<T: Decodable>(_ path: String, as type: T.Type, decoder: JSONDecoder) async throws -> T {
        try decoder.decode(type, from: try await send("GET", path).body)
    }
}
