import CCurl
public import Foundation
public import MockdCore
import MockdPlatform

/// The HTTP client that forwards requests to the upstream (`mockd record`, capture-on-miss): libcurl's multi
/// interface on one thread of its own, so no libmicrohttpd worker ever waits on the network.
///
/// - Connections to the upstream are reused (libcurl's connection cache on the multi handle).
/// - A target reaches the upstream only as the path and query of the origin: `UpstreamTarget` checks it, and libcurl's
///   own URL parser must read the URL it makes with the origin's scheme, host and port and no userinfo, or nothing is
///   sent (libcurl's URL parts API would re-encode `%2F` as `%2f`, so the text is sent, checked by the parser that
///   sends it).
/// - Bytes pass through: no content decoding (`CURLOPT_ACCEPT_ENCODING` unset, so the client's own
///   `Accept-Encoding` goes upstream and a compressed answer comes back compressed), no redirects followed,
///   no cookie engine, the path sent as is (`CURLOPT_PATH_AS_IS`), HTTP/1.1.
/// - TLS peers are verified against the system CA store (plus `caFile`) unless `insecure`.
/// - `completion` is called exactly once per request, on the client's thread; keep it short.
public final class UpstreamClient: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// The upstream origin, `https://api.example.com` or `http://127.0.0.1:9000` (no path, no trailing slash).
        public var origin: String
        /// Whole-exchange limit per request (connect, send, answer), in seconds.
        public var timeoutSeconds: Double
        /// Skip TLS certificate and host name verification (`--upstream-insecure`).
        public var insecure: Bool
        /// A PEM file of extra CA certificates to trust for the upstream; `nil` uses the system store only.
        public var caFile: String?

        public init(origin: String, timeoutSeconds: Double = 30, insecure: Bool = false, caFile: String? = nil) {
            self.origin = origin
            self.timeoutSeconds = timeoutSeconds
            self.insecure = insecure
            self.caFile = caFile
        }
    }

    /// One request to forward.
    public struct Request: Sendable {
        public var method: String
        /// The request-target as the client sent it (path and query, percent-encoded).
        public var target: String
        /// Header fields to send (already without hop-by-hop fields and `Host`).
        public var headers: HTTPHeaders
        public var body: Data
        /// Send the body (and a `Content-Length`, 0 for an empty one) even when empty.
        public var hasBody: Bool

        public init(method: String, target: String, headers: HTTPHeaders, body: Data, hasBody: Bool) {
            self.method = method
            self.target = target
            self.headers = headers
            self.body = body
            self.hasBody = hasBody
        }
    }

    public let configuration: Configuration
    private let multi: UnsafeMutableRawPointer
    private let pending = Mutex<[Transfer]>([])
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// Transfers on the multi handle; only the client's thread touches it.
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    /// Finished easy handles kept for reuse (`curl_easy_reset`), so a busy proxy does not allocate and clear
    /// libcurl's large per-transfer state for every request; only the client's thread touches it.
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private static let maxIdleHandles = 256

    /// The origin's scheme, host and port as libcurl reads them; every URL sent must read the same.
    private let originAuthority: Authority?

    /// Starts the client's thread.
    public init(configuration: Configuration) {
        UpstreamClient.initializeLibrary
        self.configuration = configuration
        originAuthority = Self.authority(of: configuration.origin)
        multi = curl_multi_init()!
        ThreadName.startThread(named: "mockd-upstream") { [self] in run() }
    }

    private static let emptyBody: StaticString = ""

    /// `curl_global_init` once per process, before any other libcurl call.
    private static let initializeLibrary: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Sends `request` upstream; `completion` gets the answer or why there was none.
    public func send(
        _ request: Request,
        completion: @escaping @Sendable (Result<UpstreamResponse, UpstreamFailure>) -> Void
    ) {
        let parts: UpstreamTarget.Parts
        do {
            parts = try UpstreamTarget.parts(of: request.target)
        } catch {
            return completion(.failure(UpstreamFailure(.unsafeTarget, error.description)))
        }
        let url = configuration.origin + parts.target
        guard let expected = originAuthority, Self.authority(of: url) == expected else {
            return completion(
                .failure(UpstreamFailure(.unsafeTarget, "\(url) does not name the upstream \(configuration.origin)"))
            )
        }
        let transfer = Transfer(request: request, url: url, completion: completion)
        guard !stopped.load(ordering: .relaxed) else {
            return completion(.failure(UpstreamFailure(.unreachable, "mockd is shutting down")))
        }
        pending.withLock { $0.append(transfer) }
        curl_multi_wakeup(multi)
    }

    /// Scheme, host, port and userinfo as libcurl's URL parser reads them.
    private struct Authority: Equatable {
        var scheme: String?
        var host: String?
        var port: String?
        var user: String?
        var password: String?
    }

    /// How libcurl reads `url`; `nil` when it does not parse.
    private static func authority(of url: String) -> Authority? {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK else { return nil }
        func part(_ which: CURLUPart) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
        return Authority(
            scheme: part(CURLUPART_SCHEME),
            host: part(CURLUPART_HOST),
            port: part(CURLUPART_PORT),
            user: part(CURLUPART_USER),
            password: part(CURLUPART_PASSWORD)
        )
    }

    /// Ends the thread; transfers still running fail with "mockd is shutting down". Waits for the thread.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        curl_multi_wakeup(multi)
        finished.wait()
    }

    private func run() {
        var running: Int32 = 0
        while !stopped.load(ordering: .relaxed) {
            for transfer in pending.withLock({ list in
                defer { list.removeAll() }
                return list
            }) { start(transfer) }
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let code = message.pointee.data.result
                complete(easy, code: code)
            }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for transfer in pending.withLock({ list in
            defer { list.removeAll() }
            return list
        }) {
            transfer.completion(.failure(UpstreamFailure(.unreachable, "mockd is shutting down")))
        }
        for (easy, transfer) in active {
            curl_multi_remove_handle(multi, easy)
            curl_easy_cleanup(easy)
            transfer.release()
            transfer.completion(.failure(UpstreamFailure(.unreachable, "mockd is shutting down")))
        }
        active.removeAll()
        idleHandles.forEach { curl_easy_cleanup($0) }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
        finished.signal()
    }

    private func start(_ transfer: Transfer) {
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            return transfer.completion(.failure(UpstreamFailure(.unreachable, "libcurl could not create a transfer")))
        }
        let request = transfer.request
        let context = Unmanaged.passRetained(transfer).toOpaque()
        transfer.retained = context
        CCurl_setPointer(easy, CURLOPT_URL, transfer.url)
        CCurl_setLong(easy, CURLOPT_NOSIGNAL, 1)
        CCurl_setLong(easy, CURLOPT_PATH_AS_IS, 1)
        CCurl_setLong(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        CCurl_setLong(easy, CURLOPT_TIMEOUT_MS, Int(configuration.timeoutSeconds * 1000))
        CCurl_setLong(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.timeoutSeconds * 1000))
        CCurl_setPointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        if configuration.insecure {
            CCurl_setLong(easy, CURLOPT_SSL_VERIFYPEER, 0)
            CCurl_setLong(easy, CURLOPT_SSL_VERIFYHOST, 0)
        } else if let caFile = configuration.caFile {
            CCurl_setPointer(easy, CURLOPT_CAINFO, caFile)
        }
        switch request.method {
        case "GET": break
        case "HEAD": CCurl_setLong(easy, CURLOPT_NOBODY, 1)
        default: CCurl_setPointer(easy, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if !request.body.isEmpty {
            CCurl_setOffset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            _ = request.body.withUnsafeBytes { CCurl_setPointer(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
        } else if request.hasBody {
            // An empty body still sent as one (`Content-Length: 0`); POSTFIELDS is not copied, so static storage.
            CCurl_setOffset(easy, CURLOPT_POSTFIELDSIZE_LARGE, 0)
            CCurl_setPointer(easy, CURLOPT_POSTFIELDS, UnsafeRawPointer(UpstreamClient.emptyBody.utf8Start))
        }
        // Only the client's fields: libcurl's own Accept (and a form Content-Type for a body) are switched off
        // by naming them with an empty value; `Name;` sends a field with an empty value.
        var list: UnsafeMutablePointer<curl_slist>?
        for field in request.headers {
            list = curl_slist_append(list, field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        if request.headers["accept"] == nil { list = curl_slist_append(list, "Accept:") }
        if request.headers["content-type"] == nil { list = curl_slist_append(list, "Content-Type:") }
        list = curl_slist_append(list, "Expect:")
        transfer.headerList = list
        CCurl_setPointer(easy, CURLOPT_HTTPHEADER, list)
        CCurl_setDataCallback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().body.append(
                UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self),
                count: size * count
            )
            return size * count
        }
        CCurl_setPointer(easy, CURLOPT_WRITEDATA, context)
        CCurl_setDataCallback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().headerLine(
                UnsafeRawBufferPointer(start: data, count: size * count)
            )
            return size * count
        }
        CCurl_setPointer(easy, CURLOPT_HEADERDATA, context)
        CCurl_setPointer(easy, CURLOPT_PRIVATE, context)
        transfer.startNanoseconds = DispatchTime.now().uptimeNanoseconds
        active[easy] = transfer
        curl_multi_add_handle(multi, easy)
    }

    private func complete(_ easy: UnsafeMutableRawPointer, code: CURLcode) {
        guard let transfer = active.removeValue(forKey: easy) else { return }
        var status = 0
        CCurl_getLong(easy, CURLINFO_RESPONSE_CODE, &status)
        curl_multi_remove_handle(multi, easy)
        if idleHandles.count < Self.maxIdleHandles {
            curl_easy_reset(easy)
            idleHandles.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
        transfer.release()
        if code == CURLE_OK {
            transfer.completion(
                .success(
                    UpstreamResponse(
                        status: status,
                        httpVersion: transfer.httpVersion,
                        headers: transfer.headers,
                        body: transfer.body
                    )
                )
            )
            return
        }
        let detail = transfer.errorMessage
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        transfer.completion(
            .failure(UpstreamFailure(code == CURLE_OPERATION_TIMEDOUT ? .timeout : .unreachable, message))
        )
    }
}

/// One request in flight: what to send, what has arrived, whom to tell.
private final class Transfer: @unchecked Sendable {
    let request: UpstreamClient.Request
    let url: String
    let completion: @Sendable (Result<UpstreamResponse, UpstreamFailure>) -> Void
    var headers = HTTPHeaders()
    var httpVersion = "HTTP/1.1"
    var body = Data()
    var startNanoseconds: UInt64 = 0
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// The retain passed to libcurl as callback context, released when the transfer ends.
    var retained: UnsafeMutableRawPointer?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    init(
        request: UpstreamClient.Request,
        url: String,
        completion: @escaping @Sendable (Result<UpstreamResponse, UpstreamFailure>) -> Void
    ) {
        self.request = request
        self.url = url
        self.completion = completion
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    var errorMessage: String { String(cString: errorBuffer) }

    /// Gives back the context retain once libcurl no longer calls back.
    func release() {
        if let retained { Unmanaged<Transfer>.fromOpaque(retained).release() }
        retained = nil
    }

    /// One raw header line (`HTTP/1.1 200 OK`, `Name: value`, or the empty line ending a block). Each status
    /// line starts a new block, so only the final response's fields remain after `100 Continue`. Bytes, not
    /// Foundation: this runs for every header of every proxied answer.
    func headerLine(_ raw: UnsafeRawBufferPointer) {
        var end = raw.count
        while end > 0, raw[end - 1] == 0x0A || raw[end - 1] == 0x0D { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: raw[0..<end])
        if line.starts(with: "HTTP/".utf8) {
            headers = HTTPHeaders()
            httpVersion = String(decoding: line.prefix { $0 != 0x20 }, as: UTF8.self)
            return
        }
        guard let colon = line.firstIndex(of: 0x3A) else { return }
        var start = colon + 1
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        var stop = end
        while stop > start, line[stop - 1] == 0x20 || line[stop - 1] == 0x09 { stop -= 1 }
        headers.add(
            name: String(decoding: line[0..<colon], as: UTF8.self),
            value: String(decoding: line[start..<stop], as: UTF8.self)
        )
    }
}
