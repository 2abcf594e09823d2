#if os(Linux)
import CCrypto
#elseif canImport(CommonCrypto)
import CommonCrypto
#endif

/// SHA-1, for the WebSocket handshake's `Sec-WebSocket-Accept` (RFC 6455 §4.2.2) only: OpenSSL's libcrypto on
/// Linux, CommonCrypto (part of the system) on Darwin.
public enum SHA1 {
    /// The 20-byte SHA-1 digest of `bytes`.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        #if os(Linux)
        _ = bytes.withUnsafeBufferPointer { CCrypto.SHA1($0.baseAddress, $0.count, &digest) }
        #elseif canImport(CommonCrypto)
        _ = bytes.withUnsafeBufferPointer { CC_SHA1($0.baseAddress, CC_LONG($0.count), &digest) }
        #endif
        return digest
    }
}
