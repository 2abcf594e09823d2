import Foundation
import MockdCore

/// Subprotocol negotiation in the opening handshake (RFC 6455 §4.2.2, step 5.4 "/subprotocol/"; §1.9).
extension WebSocketHandshake {
    /// The subprotocol to answer with in `Sec-WebSocket-Protocol`, or `nil` to send no such header.
    ///
    /// The client's offers are the comma-separated tokens of every `Sec-WebSocket-Protocol` request header, in its
    /// order of preference. With `supported` (the script's `subprotocols`, configured or recorded), the answer is the
    /// first offer in that list (compared exactly: subprotocol names are case-sensitive tokens); with no list, the
    /// client's first offer. A server may only answer with a protocol the client offered, so a client that offers
    /// none gets no header.
    static func subprotocol(for request: HTTPRequest, supported: [String]?) -> String? {
        let offers = request.headers.values(named: "sec-websocket-protocol").flatMap { value in
            value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        guard let supported, !supported.isEmpty else { return offers.first }
        return offers.first { supported.contains($0) }
    }
}
