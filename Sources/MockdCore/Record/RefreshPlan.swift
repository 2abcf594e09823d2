public import Foundation
import MockdFormat

/// `mockd refresh`: which stubs of a set can be asked again, and how (method, target, recorded headers, body).
///
/// A stub is replayed when the set was recorded (it names `origins`) and its request holds no placeholder
/// (`{{accessToken}}` in a query or body cannot be sent as recorded). Anything else — a set without origins
/// (hand-written, WireMock), a stub for another host, a WebSocket or a placeholder — is listed with the reason,
/// never guessed.
public struct RefreshPlan: Sendable {
    /// One request to send again.
    public struct Replay: Sendable {
        public var stubID: String
        public var method: String
        /// Path and query, as recorded.
        public var target: String
        /// The header constraints the stub recorded (`Content-Type`, `Accept`…); never credentials.
        public var headers: HTTPHeaders
        public var body: Data
        /// The recorded URL for the HAR: the stub's origin and `target`, so the refreshed set keeps its hosts.
        public var recordedURL: String
        /// The status recorded before, to tell which requests now fail.
        public var previousStatus: Int
    }

    public var replays: [Replay] = []
    /// `id (METHOD path): why` for every stub not replayed.
    public var skipped: [String] = []

    /// Plans the refresh of `build` against the upstream origin `upstream` (`https://api.example.com`).
    public init(_ build: MockSetBuild, upstream: String) {
        let origins = build.file.origins ?? []
        for (index, stub) in build.file.stubs.enumerated() {
            let request = stub.request
            let id = stub.id ?? "stubs[\(index)]"
            let name = "\(id) (\(request.method) \(request.path))"
            guard let origin = Self.origin(of: request, origins: origins) else {
                skipped.append("\(name): no recorded request (the set names no origin: hand-written or WireMock)")
                continue
            }
            if stub.responses.contains(where: { $0.websocket != nil || $0.events != nil }) {
                skipped.append("\(name): a WebSocket or event stream is not replayed")
                continue
            }
            var body = Data()
            if let entry = request.body {
                if let json = entry.json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    body = (try? encoder.encode(json)) ?? Data()
                } else if let text = entry.text {
                    body = Data(text.utf8)
                } else if let file = entry.file {
                    body = build.files[file] ?? Data()
                }
            }
            let target = request.path + (request.query.map { "?" + $0 } ?? "")
            if target.contains("{{") || String(decoding: body, as: UTF8.self).contains("{{") {
                skipped.append("\(name): the recorded request holds a placeholder (redacted at import); not sent")
                continue
            }
            var headers = HTTPHeaders()
            for line in request.headers ?? [] {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if value.contains("{{") { continue }
                headers.add(name: String(line[..<colon]), value: value)
            }
            replays.append(
                Replay(
                    stubID: id,
                    method: request.method,
                    target: target,
                    headers: headers,
                    body: body,
                    recordedURL: origin + target,
                    previousStatus: stub.responses.first?.status ?? 200
                )
            )
        }
    }

    /// The origin a stub was recorded from: its host on the scheme of the set's origins, else the set's only origin.
    private static func origin(of request: MockSetFile.RequestEntry, origins: [String]) -> String? {
        if let host = request.host {
            return origins.first { $0.hasSuffix("://" + host) } ?? origins.first.map { Self.scheme($0) + host }
        }
        return origins.count == 1 ? origins[0] : origins.first
    }

    private static func scheme(_ origin: String) -> String {
        origin.range(of: "://").map { String(origin[..<$0.upperBound]) } ?? "https://"
    }
}
