import CCrypto

/// SHA-1, for the WebSocket handshake's `Sec-WebSocket-Accept` (RFC 6455 §4.2.2) only: OpenSSL's libcrypto on every
/// system (Debian's libssl-dev, Homebrew's openssl@3, which the TLS options need anyway).
public enum SHA1 {
    /// The 20-byte SHA-1 digest of `bytes`.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        _ = bytes.withUnsafeBufferPointer { CCrypto.SHA1($0.baseAddress, $0.count, &digest) }
        return digest
    }
}
