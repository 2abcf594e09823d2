import CCrypto
public import Foundation

/// SHA-256 (FIPS 180-4) from OpenSSL's libcrypto, printed as `sha256sum` prints it: how the golden files pin the
/// body files they do not hold (`digests.sha256`).
public enum SHA256 {
    /// The digest of `data` as 64 lowercase hex digits.
    public static func hex(_ data: Data) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        data.withUnsafeBytes { bytes in
            _ = CCrypto.SHA256(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &digest)
        }
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}
