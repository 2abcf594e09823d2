import CCrypto
import Foundation

/// A PEM certificate chain and its private key for HTTPS, read and checked before libmicrohttpd (GnuTLS)
/// gets them, so a bad file is reported as one line naming it.
public struct TLSCredentials: Sendable {
    /// The certificate chain, PEM (server certificate first).
    public let certificatePEM: String
    /// The private key, PEM (PKCS#8, PKCS#1 or SEC1; unencrypted).
    public let keyPEM: String
    /// Paths as given, for messages.
    public let certificatePath: String
    public let keyPath: String

    /// Reads and checks both files: each must exist and parse as PEM, and the key must belong to the certificate.
    /// - Throws: `TLSCredentials.Problem` whose description names the file and what is wrong with it.
    public static func load(certificate certificatePath: String, key keyPath: String) throws -> TLSCredentials {
        let certificate = try read(certificatePath, option: "--tls-cert")
        let key = try read(keyPath, option: "--tls-key")
        guard let x509 = parse(certificate, PEM_read_bio_X509) else {
            throw Problem("--tls-cert \(certificatePath): not a PEM certificate (expected -----BEGIN CERTIFICATE-----)")
        }
        defer { X509_free(x509) }
        guard let privateKey = parse(key, { PEM_read_bio_PrivateKey($0, $1, $2, $3) }) else {
            throw Problem(
                "--tls-key \(keyPath): not an unencrypted PEM private key (expected -----BEGIN PRIVATE KEY-----)"
            )
        }
        defer { EVP_PKEY_free(privateKey) }
        guard X509_check_private_key(x509, privateKey) == 1 else {
            ERR_clear_error()
            throw Problem("--tls-key \(keyPath): does not belong to the certificate in \(certificatePath)")
        }
        return TLSCredentials(
            certificatePEM: certificate,
            keyPEM: key,
            certificatePath: certificatePath,
            keyPath: keyPath
        )
    }

    /// A file that cannot serve HTTPS, as one line.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    private static func read(_ path: String, option: String) throws -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw Problem("\(option) \(path): no such file")
        }
        guard !isFolder.boolValue else { throw Problem("\(option) \(path): is a folder, not a PEM file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem("\(option) \(path): cannot be read (permission denied?)")
        }
        guard let text = String(data: data, encoding: .utf8), !text.contains("\0") else {
            throw Problem("\(option) \(path): not a PEM text file")
        }
        return text
    }

    /// The first PEM object of `text` parsed by `reader`, or nil.
    private static func parse<Object>(
        _ text: String,
        _ reader: (
            OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?,
            (@convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32)?,
            UnsafeMutableRawPointer?
        ) -> Object?
    ) -> Object? {
        let bytes = Array(text.utf8)
        let object: Object? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // No password callback answer: an encrypted key fails instead of prompting on the terminal.
            return reader(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        ERR_clear_error()
        return object
    }
}
