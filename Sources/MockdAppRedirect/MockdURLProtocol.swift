#if MOCKD_REDIRECT
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` that carries a redirected request to mockd and its answer back, under the original URL.
final class MockdURLProtocol: URLProtocol {
    /// What `MockdRedirect.install` set.
    static let configuration = Locked<MockdRedirect.Configuration?>(nil)
    /// Marks a request this protocol already sent, so it never takes its own request again.
    private static let handledKey = "MockdRedirect.handled"
    /// The session that talks to mockd: ephemeral, without this protocol.
    private static let forwarding: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = []
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    private let forwardTask = Locked<URLSessionDataTask?>(nil)

    override class func canInit(with request: URLRequest) -> Bool {
        guard URLProtocol.property(forKey: handledKey, in: request) == nil,
            let configuration = configuration.withLock({ $0 })
        else { return false }
        return configuration.redirected(request) != nil
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let configuration = Self.configuration.withLock({ $0 }),
            var redirected = configuration.redirected(request), let originalURL = request.url
        else {
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
            return
        }
        // A body given as a stream (uploads) is read once here: mockd bounds request bodies anyway.
        if redirected.httpBody == nil, let stream = request.httpBodyStream {
            redirected.httpBody = Self.read(stream)
            redirected.httpBodyStream = nil
        }
        let marked = (redirected as NSURLRequest).mutableCopy() as! NSMutableURLRequest
        URLProtocol.setProperty(true, forKey: Self.handledKey, in: marked)
        // URLProtocol instances are not Sendable; this one is used from the forwarding callback only, once.
        let owner = Unchecked(value: self)
        let forwarded = marked as URLRequest
        let makeTask: @Sendable () -> URLSessionDataTask = {
            Self.forwarding.dataTask(with: forwarded) { data, response, error in
                let loader = owner.value
                if let error {
                    loader.client?.urlProtocol(loader, didFailWithError: error)
                    return
                }
                guard let http = response as? HTTPURLResponse else {
                    loader.client?.urlProtocol(loader, didFailWithError: URLError(.badServerResponse))
                    return
                }
                // The app sees its own URL, not mockd's; mockd's client-fault header is for this library only.
                var fields: [String: String] = [:]
                var clientFault: String?
                for (name, value) in http.allHeaderFields {
                    if "\(name)".caseInsensitiveCompare(ClientFault.responseHeader) == .orderedSame {
                        clientFault = "\(value)"
                    } else {
                        fields["\(name)"] = "\(value)"
                    }
                }
                if let clientFault {
                    // A failure only the client can have: this request fails as URLSession would fail it.
                    loader.client?.urlProtocol(
                        loader,
                        didFailWithError: ClientFault.error(clientFault, url: originalURL)
                    )
                    return
                }
                let answer =
                    HTTPURLResponse(
                        url: originalURL,
                        statusCode: http.statusCode,
                        httpVersion: "HTTP/1.1",
                        headerFields: fields
                    )
                    ?? http
                loader.client?.urlProtocol(loader, didReceive: answer, cacheStoragePolicy: .notAllowed)
                if let data, !data.isEmpty { loader.client?.urlProtocol(loader, didLoad: data) }
                loader.client?.urlProtocolDidFinishLoading(loader)
            }
        }
        // Started from another queue: swift-corelibs-foundation calls `startLoading` on its URLSession queue, and
        // making a task of another session there is a `sync` onto that same queue (a deadlock trap).
        let tasks = Unchecked(value: forwardTask)
        DispatchQueue.global().async {
            let dataTask = makeTask()
            tasks.value.withLock { $0 = dataTask }
            dataTask.resume()
        }
    }

    override func stopLoading() {
        forwardTask.withLock { $0?.cancel() }
    }

    private static func read(_ stream: InputStream) -> Data {
        var data = Data()
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { break }
            data.append(buffer, count: count)
        }
        return data
    }
}

/// A reference handed to a `@Sendable` callback that is its only user at that time.
struct Unchecked<T>: @unchecked Sendable {
    let value: T
}

/// A value behind `NSLock` (Foundation only: no Synchronization below iOS 18).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
#endif
