public import Foundation
import MockdFormat

/// `mockd refresh`: which stubs of a set can be asked again, and how (method, target, recorded headers, body).
///
/// A stub is replayed when the set was recorded (it names `origins`), its request holds no placeholder
/// (`{{accessToken}}` in a query or body cannot be sent as recorded) and its path is origin-form (`UpstreamTarget`: a
/// hand-edited `@host/x` must not reach another host), with the body it was recorded with: the key's `body`, else
/// `recordedBody` (what was sent when the body is not part of the key, the usual case of one POST per endpoint).
/// Anything else — a set without origins (hand-written, WireMock), a WebSocket or event stream, a placeholder, such a
/// path, a body the set does not hold — is listed with the reason, never guessed.
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
            if let entry = request.body ?? request.recordedBody {
                if let json = entry.json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    body = (try? encoder.encode(json)) ?? Data()
                } else if let text = entry.text {
                    body = Data(text.utf8)
                } else if let file = entry.file {
                    guard let data = build.files[file] else {
                        skipped.append("\(name): its recorded body file \(file) cannot be read; not sent without it")
                        continue
                    }
                    body = data
                }
            } else if Self.carriesBody(request) {
                // A set imported before recorded bodies were kept: the request had a body (its Content-Type says so),
                // which the set does not hold. Sent without it, the upstream's error would read as an API change.
                skipped.append(
                    "\(name): the set does not hold the body this request was recorded with (imported before mockd kept recorded bodies); import the HAR again to refresh it"
                )
                continue
            }
            let target = request.path + (request.query.map { "?" + $0 } ?? "")
            let recordedURL: String
            do {
                recordedURL = try UpstreamTarget.url(origin: origin, target: target)
            } catch {
                skipped.append("\(name): the path is not origin-form: \(error.description); not sent")
                continue
            }
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
                    recordedURL: recordedURL,
                    previousStatus: stub.responses.first?.status ?? 200
                )
            )
        }
    }

    /// Whether the recorded request had a body by its matched `Content-Type` header (a body's type) or its method
    /// (`POST`, `PUT`, `PATCH` with a `Content-Type`).
    private static func carriesBody(_ request: MockSetFile.RequestEntry) -> Bool {
        (request.headers ?? []).contains { line in
            line.lowercased().hasPrefix("content-type:")
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
