#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif

/// The socket calls whose spelling differs between Linux and Darwin, one seam: stream sockets created
/// close-on-exec and non-blocking, and writes that never raise `SIGPIPE`.
///
/// Linux sets both flags in `socket(2)`'s type and passes `MSG_NOSIGNAL` to `send(2)`; Darwin has neither, so the
/// flags are set with `fcntl(2)` right after `socket(2)` and `SO_NOSIGPIPE` is set on the socket. Each is one call
/// more on Darwin at creation, none per write.
public enum PlatformSocket {
    /// `SOCK_STREAM` as `socket(2)` and `getaddrinfo(3)` take it.
    public static var streamType: Int32 {
        #if os(Linux)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    /// A stream socket of `family`, close-on-exec and non-blocking (and, on Darwin, without `SIGPIPE`).
    /// - Returns: The descriptor, or -1 with `errno` set, as `socket(2)`.
    public static func nonBlockingStream(family: Int32) -> Int32 {
        #if os(Linux)
        return socket(family, streamType | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        #else
        let descriptor = socket(family, streamType, 0)
        guard descriptor >= 0 else { return descriptor }
        guard fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0,
            fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) == 0
        else {
            let saved = errno
            close(descriptor)
            errno = saved
            return -1
        }
        noSignalOnWrite(descriptor)
        return descriptor
        #endif
    }

    /// Makes writes to `descriptor` fail with `EPIPE` rather than raise `SIGPIPE` (Darwin: `SO_NOSIGPIPE`; Linux:
    /// nothing, `send` passes `MSG_NOSIGNAL`). For sockets mockd did not create (an upgraded WebSocket's).
    public static func noSignalOnWrite(_ descriptor: Int32) {
        #if !os(Linux)
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// `send(2)` without `SIGPIPE`: `MSG_NOSIGNAL` on Linux; on Darwin the socket carries `SO_NOSIGPIPE`
    /// (`nonBlockingStream`, `noSignalOnWrite`).
    /// - Returns: The bytes written, or -1 with `errno` set.
    @inline(__always)
    public static func send(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if os(Linux)
        Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
        #else
        Darwin.send(descriptor, bytes, count, 0)
        #endif
    }

    /// `connect(2)`.
    public static func connect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if os(Linux)
        Glibc.connect(descriptor, address, length)
        #else
        Darwin.connect(descriptor, address, length)
        #endif
    }

    /// `shutdown(2)` of the writing side (`SHUT_WR`): the peer reads the end of the stream.
    public static func shutdownWriting(_ descriptor: Int32) {
        #if os(Linux)
        _ = Glibc.shutdown(descriptor, Int32(SHUT_WR))
        #else
        _ = Darwin.shutdown(descriptor, SHUT_WR)
        #endif
    }

    /// `shutdown(2)` of the reading side (`SHUT_RD`).
    public static func shutdownReading(_ descriptor: Int32) {
        #if os(Linux)
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RD))
        #else
        _ = Darwin.shutdown(descriptor, SHUT_RD)
        #endif
    }
}
