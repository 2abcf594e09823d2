import Foundation
import MockdControl

/// What the engine decided for one request, with what the bridge needs to journal it afterwards.
///
/// The exchange sits behind one reference, so the outcome is two words wherever it is passed, and the journal keeps
/// the exchange itself instead of copying its fields (docs/BENCHMARKS.md, issue 7).
public struct EngineOutcome: Sendable {
    /// The request and the answer planned for it, immutable; what the journal keeps. One word: an enum of two class
    /// payloads (`MemoryLayout<Exchange>.size` is 8, its `Optional` too).
    @usableFromInline
    enum Exchange: Sendable {
        /// A plan made for this request.
        case planned(PlannedExchange)
        /// A stub's first response exactly as loaded.
        case stub(StubExchange)

        @usableFromInline var request: HTTPRequest {
            @inline(__always) _read {
                switch self {
                case .planned(let exchange): yield exchange.request
                case .stub(let exchange): yield exchange.request
                }
            }
        }

        var arrival: Date {
            @inline(__always) get {
                switch self {
                case .planned(let exchange): return exchange.arrival
                case .stub(let exchange): return exchange.arrival
                }
            }
        }

        /// The stub whose first response answered, without a reference count (the exchange owns it): asking whether
        /// a stub answered, and using it, then retains nothing that other threads also retain.
        var borrowedStub: Unmanaged<Stub>? {
            @inline(__always) get {
                guard case .stub(let exchange) = self else { return nil }
                return exchange.borrowedStub
            }
        }

        /// What the request was answered with and how.
        @usableFromInline var plan: PlannedResponse {
            @inline(__always) _read {
                switch self {
                case .planned(let exchange): yield exchange.plan
                case .stub(let exchange): yield Exchange.plan(sending: exchange.stub)
                }
            }
        }

        /// The stub whose first response answered exactly as loaded.
        var stub: Stub? { borrowedStub?.takeUnretainedValue() }

        var nearMisses: [NearMiss] {
            guard case .planned(let exchange) = self else { return [] }
            return exchange.nearMisses
        }

        var proxied: Bool {
            guard case .planned(let exchange) = self else { return false }
            return exchange.proxied
        }

        /// The plan that sends `stub`'s first response as loaded, through its shared native response.
        @usableFromInline static func plan(sending stub: Stub) -> PlannedResponse {
            var plan = PlannedResponse(response: stub.firstResponse)
            plan.nativeSlot = stub
            return plan
        }
    }

    /// An exchange answered by a plan made for its request.
    @usableFromInline
    final class PlannedExchange: Sendable {
        let request: HTTPRequest
        let arrival: Date
        let plan: PlannedResponse
        let nearMisses: [NearMiss]
        /// Answered by the upstream (capture-on-miss, `mockd record`).
        let proxied: Bool

        init(plan: PlannedResponse, request: HTTPRequest, arrival: Date, nearMisses: [NearMiss], proxied: Bool) {
            self.request = request
            self.arrival = arrival
            self.plan = plan
            self.nearMisses = nearMisses
            self.proxied = proxied
        }
    }

    /// An exchange answered by a stub's first response exactly as loaded (a static, plain stub: no sequence,
    /// placeholders, fault, stream or WebSocket): the bridge sends the stub's shared native response, and no
    /// plan or copy of the response is made or kept (each copy retained the stub's header and body storage,
    /// which every worker thread shares, and a placeholder plan cost a copy and a destruction per request).
    @usableFromInline
    final class StubExchange: Sendable {
        let request: HTTPRequest
        let arrival: Date
        let stub: Stub
        /// `stub` without a reference count, for readers that must not touch one other threads share.
        let borrowedStub: Unmanaged<Stub>

        init(stub: Stub, request: HTTPRequest, arrival: Date) {
            self.request = request
            self.arrival = arrival
            self.stub = stub
            self.borrowedStub = Unmanaged.passUnretained(stub)
        }
    }

    /// The session an outcome is journaled in.
    enum SessionReference: Sendable {
        /// A control API request (or a refused session id): not journaled.
        case none
        /// The default session, named rather than referenced: it lives as long as the engine, which resolves it.
        /// Its reference count, changed by every worker thread on every request, moved its cache line between cores.
        case defaultSession
        case named(Session)
    }

    @usableFromInline let exchange: Exchange
    let session: SessionReference

    init(
        plan: PlannedResponse,
        request: HTTPRequest,
        session: SessionReference,
        arrival: Date,
        nearMisses: [NearMiss],
        proxied: Bool = false
    ) {
        self.exchange = .planned(
            PlannedExchange(plan: plan, request: request, arrival: arrival, nearMisses: nearMisses, proxied: proxied)
        )
        self.session = session
    }

    /// An answer by `stub`'s first response exactly as loaded (see `StubExchange`).
    init(stub: Stub, request: HTTPRequest, session: SessionReference, arrival: Date) {
        self.exchange = .stub(StubExchange(stub: stub, request: request, arrival: arrival))
        self.session = session
    }

    // Inlinable and yielded, not returned: a plain getter copies the whole plan on every `outcome.plan.field`
    // read in the server bridge.
    @inlinable public var plan: PlannedResponse {
        _read { yield exchange.plan }
    }
    /// The stub whose first response answers, exactly as loaded, when the answer is that simple (most requests):
    /// the bridge then sends the stub's shared native response without reading `plan`, which would be built for it.
    public var servedStub: Stub? { exchange.stub }
    /// `servedStub` without a retain, valid while this outcome lives (use it with `_withUnsafeGuaranteedRef`).
    public var borrowedServedStub: Unmanaged<Stub>? { exchange.borrowedStub }
    /// The request as matched (a `/__session/ID` prefix removed).
    @inlinable public var request: HTTPRequest {
        _read { yield exchange.request }
    }
    /// The session's id (`default` for the default session); `nil` for control requests.
    public var sessionID: String? {
        switch session {
        case .none: return nil
        case .defaultSession: return SessionRegistry.defaultID
        case .named(let session): return session.id
        }
    }
    /// Whether the outcome is journaled in a session (every request but control API ones).
    var isJournaled: Bool {
        if case .none = session { return false }
        return true
    }
    var arrival: Date { exchange.arrival }
    var nearMisses: [NearMiss] { exchange.nearMisses }
    /// Answered by the upstream (capture-on-miss, `mockd record`) instead of a stub; see `answered(byUpstream:)`.
    public var proxied: Bool { exchange.proxied }
}
