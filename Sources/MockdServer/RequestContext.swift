import Foundation
import MockdCore
import MockdFormat

/// Per-request state, taken on the first access-handler call and given back when libmicrohttpd reports the request
/// complete (which it does for every request the handler has seen). Only the connection's own MHD thread touches it.
///
/// A context nothing else holds any more is kept by its connection for the connection's next request
/// (`ConnectionWatch.Connection.idleRequest`, `clear()`, `begin(target:)`): a keep-alive request then allocates and frees no
/// context. Every stored property is set again there, field by field, as `init` leaves it.
///
/// Only its connection's thread touches a context, one callback at a time, so the properties written on every request
/// are not checked for exclusive access at run time (`@exclusivity(unchecked)`: the checks cost ~110 instructions a
/// request).
final class RequestContext {
    /// The request-target as sent: path and query are kept percent-encoded (the daemon's unescape callback
    /// is the identity), so `%2F` stays distinct from `/`.
    private(set) var target: String
    private(set) var startNanoseconds: UInt64
    var headersRead = false
    var method = ""
    /// Whether `method` is one of the common methods (read as a literal), so needs no token check.
    var methodIsKnownToken = false
    /// `HTTP/1.1`, `HTTP/1.0`…
    var version = ""
    @exclusivity(unchecked) var headers = HTTPHeaders()
    /// What reading the fields found for `RequestCheck` (names that are not tokens, folds, a second Host…).
    var fieldProblems = HeadFieldProblems()
    /// The connection's whole-request deadline (`ConnectionWatch`); it outlives every request on the connection.
    /// (`ConnectionWatch.connection(of:)`: a raw pointer, so it costs no reference counting.)
    var watched: UnsafeMutableRawPointer?
    @exclusivity(unchecked) var body = Data()
    var bodyTooLarge = false
    /// Set once the engine has answered; a delayed response waits here while the connection is suspended.
    @exclusivity(unchecked) var outcome: EngineOutcome?
    /// Set when the answer is a WebSocket upgrade: what the reactor runs once the 101 is sent. Boxed: the bridge asks
    /// whether it is set on every request, and an optional tuple was copied through the runtime's generic witnesses
    /// to tell.
    var webSocket: WebSocketUpgrade?
    /// Counted in `ConnectionBridge.requestsInFlight` until the request completes or becomes a WebSocket.
    var inFlight = true
    /// Set while the upstream answers an unmatched request (capture-on-miss, `mockd record`).
    var upstream: PendingUpstream?
    /// The request line named a whole URL (`GET http://host/x`, absolute-form, RFC 9112 §3.2.2): served by its path,
    /// never sent upstream (`UpstreamProxy.refusal`).
    var absoluteForm = false
    /// The path as libmicrohttpd split it from the request line holds a space or a tab (`RequestCheck`; looked for
    /// only with libmicrohttpd's legacy head parser). Set with `target`, kept with it.
    private(set) var pathHasWhitespace = false
    /// The headers of the connection's previous request, which a repeat of them shares (`HTTPHeaders(packing:reusing:)`),
    /// and what inspecting them found, which a repeat then needs not find again (`RequestReader.readHeaders`).
    /// Immutable bytes the journal may also hold; kept across `clear()`.
    var previousHeaders = HTTPHeaders()
    var previousProblems = HeadFieldProblems()

    /// CLOCK_MONOTONIC in ns, read directly: `DispatchTime.now()` went through libdispatch and a retain per call,
    /// twice per request.
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    init(target: String) {
        self.target = target
        self.startNanoseconds = RequestContext.monotonicNanoseconds()
    }

    /// Let go of everything the finished request held (its outcome, body, headers), every field as `init(target:)`
    /// leaves it but `target` and `pathHasWhitespace` (kept for a repeat of the target), `startNanoseconds` (set by
    /// `begin`), `method`, `methodIsKnownToken` and `version` (literals for the common ones, set from every request's
    /// head before anything reads them) and `previousHeaders`: the context then waits for its connection's next request.
    func clear() {
        headersRead = false
        headers = HTTPHeaders()
        fieldProblems = HeadFieldProblems()
        watched = nil
        body = Data()
        bodyTooLarge = false
        outcome = nil
        webSocket = nil
        inFlight = true
        upstream = nil
        absoluteForm = false
    }

    /// A cleared context taken for the next request on its connection.
    func begin(target: String, pathHasWhitespace: Bool) {
        self.target = target
        self.pathHasWhitespace = pathHasWhitespace
        startNanoseconds = RequestContext.monotonicNanoseconds()
    }

    /// A cleared context taken for a request whose target is its previous one's, byte for byte: the target, and what
    /// was found in it, are kept.
    func beginRepeatingTarget() {
        startNanoseconds = RequestContext.monotonicNanoseconds()
    }

    /// The request as the engine sees it; headers and body are moved out of the context, not copied (the context's
    /// copies lived on until it was freed).
    func takeRequest() -> HTTPRequest {
        // Read, then replaced: a `swap` with a property is a long access the runtime checks for exclusivity (twice a
        // request, ~60 instructions each).
        let headers = self.headers
        self.headers = HTTPHeaders()
        let body = self.body
        self.body = Data()
        return HTTPRequest(method: method, target: target, headers: headers, body: body)
    }
}

/// A WebSocket upgrade the bridge answered with 101: what the reactor runs once libmicrohttpd hands over the socket.
final class WebSocketUpgrade {
    let script: WebSocketScript
    let outcome: EngineOutcome
    let path: String

    init(script: WebSocketScript, outcome: EngineOutcome, path: String) {
        self.script = script
        self.outcome = outcome
        self.path = path
    }
}
