import Foundation
import MockdPlatform

/// A bound, listening TCP socket that mockd creates itself and hands to libmicrohttpd
/// (`MHD_OPTION_LISTEN_SOCKET`), so bind errors can be reported precisely and port 0 resolved.
struct ListeningSocket {
    let descriptor: Int32
    /// The numeric address actually bound.
    let address: String
    let port: Int
    let isIPv6: Bool

    /// Binds `host:port` (port 0 picks a free port) and starts listening.
    /// - Throws: `ServerError` `.invalidAddress`, `.portInUse`, `.permissionDenied` or `.socketFailed`.
    static func bind(host: String, port: Int, backlog: Int32 = SOMAXCONN) throws -> ListeningSocket {
        guard (0...65535).contains(port) else {
            throw ServerError(.invalidAddress, "--port \(port) is out of range (0–65535)")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = PlatformSocket.streamType
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(host, String(port), &hints, &results)
        guard lookup == 0, let first = results else {
            throw ServerError(
                .invalidAddress,
                "--host \(host) is not an address of this machine (\(String(cString: gai_strerror(lookup))))"
            )
        }
        defer { freeaddrinfo(results) }

        let family = first.pointee.ai_family
        // Non-blocking: every pool thread polls the listening socket, and a thread that loses the race for a
        // new connection must not sit in accept() until the next one arrives.
        let descriptor = PlatformSocket.nonBlockingStream(family: family)
        guard descriptor >= 0 else {
            throw ServerError(.socketFailed, "cannot create a socket: \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if Foundation.bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 {
            let code = errno
            FileDescriptor(rawValue: descriptor).close()
            switch code {
            case EADDRINUSE:
                throw ServerError(
                    .portInUse,
                    "port \(port) on \(host) is already in use (another mockd?); pick another --port or --port 0 for a free one"
                )
            case EACCES:
                throw ServerError(
                    .permissionDenied,
                    "permission denied binding port \(port) on \(host); use a port above 1023"
                )
            case EADDRNOTAVAIL:
                throw ServerError(.invalidAddress, "--host \(host) is not an address of this machine")
            default:
                throw ServerError(.socketFailed, "cannot bind \(host):\(port): \(String(cString: strerror(code)))")
            }
        }
        guard listen(descriptor, backlog) == 0 else {
            let code = errno
            FileDescriptor(rawValue: descriptor).close()
            throw ServerError(.socketFailed, "cannot listen on \(host):\(port): \(String(cString: strerror(code)))")
        }

        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let boundPort: Int = withUnsafeMutablePointer(to: &storage) { pointer in
            _ = pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            if Int32(pointer.pointee.ss_family) == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                Int(UInt16(bigEndian: $0.pointee.sin_port))
            }
        }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        getnameinfo(
            first.pointee.ai_addr,
            first.pointee.ai_addrlen,
            &text,
            socklen_t(text.count),
            nil,
            0,
            NI_NUMERICHOST
        )
        let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ListeningSocket(descriptor: descriptor, address: address, port: boundPort, isIPv6: family == AF_INET6)
    }

    /// Makes a listening socket refuse connections from now on without closing its descriptor, which
    /// libmicrohttpd's threads may still hold after `MHD_quiesce_daemon`: on Linux, `shutdown(SHUT_RD)` on a
    /// listening TCP socket stops listening, so new connection attempts are refused (RST) instead of waiting
    /// in the backlog, and connections accepted by the kernel but not yet by libmicrohttpd are reset.
    static func refuseNewConnections(_ descriptor: Int32) {
        PlatformSocket.shutdownReading(descriptor)
    }

    /// `http://127.0.0.1:8080` or `http://[::1]:8080`.
    var baseURL: String {
        isIPv6 ? "http://[\(address)]:\(port)" : "http://\(address):\(port)"
    }
}
