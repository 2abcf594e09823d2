import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension MockdClient {
    /// This session's journal live (`GET /__mockd/journal/stream`, Server-Sent Events): `.hello` when the stream is
    /// open, then `.entry` for every request from the one after sequence `after` on, as they arrive, and `.reset`
    /// when the session is reset (numbering starts over). The stream stays open until the task iterating it ends or
    /// is cancelled.
    ///
    /// ```swift
    /// for try await event in mockd.journalEvents() {
    ///     if case .entry(let row) = event, row.target == "/v1/orders" { break }
    /// }
    /// ```
    /// - Parameter after: The sequence number to start after (0, the default: the whole journal).
    /// - Returns: The events; the sequence throws `MockdClientError.server(503, "too_many_streams", …)` when the
    ///   daemon has 32 streams open, `URLError` when the daemon goes away.
    public func journalEvents(after: Int = 0) -> AsyncThrowingStream<JournalEvent, any Error> {
        AsyncThrowingStream { continuation in
            let route = ControlRoutes.journalStream.erased
            let request: URLRequest
            do {
                var built = try urlRequest(
                    route,
                    path: [],
                    query: [URLQueryItem(name: "after", value: String(after))],
                    body: NoBody?.none
                )
                // A live stream: no timeout between events (the daemon sends a keep-alive every 15 s).
                built.timeoutInterval = 24 * 60 * 60
                request = built
            } catch {
                continuation.finish(throwing: error)
                return
            }
            observer?(route.id, nil)
            let reader = EventStreamReader(route: route, continuation: continuation)
            let configuration = urlSession.configuration
            let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                task.cancel()
                session.invalidateAndCancel()
            }
            task.resume()
        }
    }
}

/// Reads `text/event-stream` bytes as they arrive (the WHATWG HTML "server-sent events" format: `event:`, `data:`,
/// `id:` lines, a blank line ends an event, `:` starts a comment) and yields the journal's events.
private final class EventStreamReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let route: AnyControlRoute
    private let continuation: AsyncThrowingStream<JournalEvent, any Error>.Continuation
    private let lock = NSLock()
    /// Guarded by `lock`: the bytes not yet parsed, the status of the answer.
    private var buffer = Data()
    private var status = 0

    init(route: AnyControlRoute, continuation: AsyncThrowingStream<JournalEvent, any Error>.Continuation) {
        self.route = route
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        locked { status = (response as? HTTPURLResponse)?.statusCode ?? 0 }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let events: [JournalEvent] = locked {
            buffer.append(data)
            guard status == 200 else { return [] }
            var events: [JournalEvent] = []
            while let end = Self.eventEnd(in: buffer) {
                let block = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex..<end.upperBound)
                if let event = Self.event(block) { events.append(event) }
            }
            return events
        }
        for event in events { continuation.yield(event) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (status, body) = locked { (self.status, buffer) }
        if let error {
            continuation.finish(throwing: error)
        } else if status != 200 {
            continuation.finish(throwing: MockdClient.failure(status: status, body: body, route: route))
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }

    /// `body` with `lock` held (`NSLocking.withLock` is newer than the client's iOS 15 / macOS 12 floor).
    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// The end of the first event in `buffer`: its blank line (`\n\n`, or `\r\n\r\n`).
    private static func eventEnd(in buffer: Data) -> Range<Data.Index>? {
        let lf = buffer.range(of: Data("\n\n".utf8))
        let crlf = buffer.range(of: Data("\r\n\r\n".utf8))
        switch (lf, crlf) {
        case (let lf?, let crlf?): return lf.lowerBound < crlf.lowerBound ? lf : crlf
        case (let lf?, nil): return lf
        case (nil, let crlf?): return crlf
        case (nil, nil): return nil
        }
    }

    /// The journal event of one block of lines; `nil` for a comment (`: keep-alive`) or an event this version does
    /// not know.
    private static func event(_ block: String) -> JournalEvent? {
        var name = "message"
        var data: [Substring] = []
        for line in block.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            guard !line.hasPrefix(":"), let colon = line.firstIndex(of: ":") else { continue }
            var value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
            switch line[..<colon] {
            case "event": name = String(value)
            case "data": data.append(value)
            default: break
            }
        }
        let payload = Data(data.joined(separator: "\n").utf8)
        switch name {
        case "hello":
            struct Hello: Decodable { let session: String }
            return (try? JSONDecoder().decode(Hello.self, from: payload)).map { .hello(session: $0.session) }
        case "entry":
            return (try? JSONDecoder().decode(JournalRow.self, from: payload)).map { .entry($0) }
        case "reset":
            return .reset
        default:
            return nil
        }
    }
}
