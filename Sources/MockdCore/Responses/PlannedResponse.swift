public import MockdFormat

/// A response plus how to deliver it: what the engine decides, as data, for the server bridge to carry out
/// without blocking a worker thread.
public struct PlannedResponse: Sendable {
    public var response: MockResponse
    /// Hold the response this long before sending it, in ms (0 = at once).
    public var delayMs: Double
    /// Deliver the body at this rate in bytes per second; `nil` = as fast as possible.
    public var throttleBytesPerSecond: Int?
    /// Break the exchange at the socket instead of answering normally.
    public var fault: Fault?
    /// Long-poll: hold the request (after any delay) until this many ms pass or the control API releases it.
    public var holdMs: Double?
    /// The recorded host the answer is for (`HostName.normalized`): the one the request named, or the host of the stub
    /// or override that answered; `nil` in a set that keeps no hosts. Kept in the journal (`host`) for `verify`.
    public var host: String?
    /// The answers an override's edit went through, nearest first: a scenario override under a runtime stub that
    /// only edits, then the mock set's stub or the resource (`resource:NAME`) whose answer it edited. Empty when the
    /// answer is `response.stubID`'s own. Kept in the journal (`edited`), counted by coverage.
    public var edited: [String] = []
    /// The pushes the answer causes (`emit`), rendered for this request; carried out once the answer is sent, never
    /// after a fault.
    public var pushes: PushBatch?
    /// Set when `response` is a stub's response exactly as loaded: the bridge may reuse a native response
    /// kept in this slot.
    public var nativeSlot: (any NativeResponseSlot)?

    public init(response: MockResponse, delayMs: Double = 0, throttleBytesPerSecond: Int? = nil, fault: Fault? = nil) {
        self.response = response
        self.delayMs = delayMs
        self.throttleBytesPerSecond = throttleBytesPerSecond
        self.fault = fault
    }
}
