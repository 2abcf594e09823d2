import Testing

@testable import MockdServer

/// The opening handshake's accept key (SHA-1 from OpenSSL), in process.
struct WebSocketHandshakeTests {
    @Test func acceptKeyFollowsRFC6455Example() {
        // RFC 6455 §1.3.
        #expect(WebSocketHandshake.accept(key: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}
