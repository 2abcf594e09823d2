import CPlatform
public import Foundation  // POSIX: re-exported from Glibc on Linux and from Darwin on a Mac

/// The socket calls whose spelling differs between Linux and Darwin, one seam: stream sockets created
/// close-on-exec and non-blocking, and writes that never raise `SIGPIPE` (CPlatform: `MSG_NOSIGNAL` on Linux,
/// `SO_NOSIGPIPE` on the socket on Darwin).
public enum PlatformSocket {
    /// `SOCK_STREAM` as `socket(2)` and `getaddrinfo(3)` take it.
    public static var streamType: Int32 { mockd_stream_socket_type() }

    /// A stream socket of `family`, close-on-exec and non-blocking, whose writes never raise `SIGPIPE`.
    /// - Returns: The descriptor, or -1 with `errno` set, as `socket(2)`.
    public static func nonBlockingStream(family: Int32) -> Int32 {
        mockd_stream_socket(family)
    }

    /// Makes writes to `descriptor` fail with `EPIPE` rather than raise `SIGPIPE`, for sockets mockd did not create
    /// (an upgraded WebSocket's). Nothing to do on Linux, where `send` passes `MSG_NOSIGNAL`.
    public static func noSignalOnWrite(_ descriptor: Int32) {
        mockd_socket_no_signal_on_write(descriptor)
    }

    /// `send(2)` without `SIGPIPE`.
    /// - Returns: The bytes written, or -1 with `errno` set.
    @inline(__always)
    public static func send(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        mockd_send(descriptor, bytes, count)
    }

    /// `connect(2)`.
    public static func connect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        Foundation.connect(descriptor, address, length)
    }

    /// `shutdown(2)` of the writing side (`SHUT_WR`): the peer reads the end of the stream.
    public static func shutdownWriting(_ descriptor: Int32) {
        _ = Foundation.shutdown(descriptor, Int32(SHUT_WR))
    }

    /// `shutdown(2)` of the reading side (`SHUT_RD`).
    public static func shutdownReading(_ descriptor: Int32) {
        _ = Foundation.shutdown(descriptor, Int32(SHUT_RD))
    }

    /// Bytes written to `descriptor` (a stream socket) that the peer has not taken yet: still in the send buffer
    /// (Linux `SIOCOUTQ`, Darwin `SO_NWRITE`), or `nil` when the system cannot say.
    public static func unsentBytes(_ descriptor: Int32) -> Int? {
        let count = mockd_socket_unsent_bytes(descriptor)
        return count < 0 ? nil : count
    }
}
