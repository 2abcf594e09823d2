#if os(Linux)
import CLinux
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The WebSocket reactor's event loop, one seam: readiness of many sockets plus a wake-up other threads can send.
/// Linux: `epoll` (level-triggered) with an `eventfd` for the wake-up. Darwin: `kqueue` with an `EVFILT_USER` event.
///
/// One thread calls `wait`, `add`, `setWriteInterest` and `remove`; any thread may call `wake`.
public final class EventPoller: @unchecked Sendable {
    /// One ready socket. On Darwin a socket ready both ways may come as two events, one flag each.
    public struct Event {
        public let descriptor: Int32
        /// Data, the end of the stream or an error is waiting (`EPOLLIN`/`EPOLLHUP`/`EPOLLERR`; `EVFILT_READ`).
        public let readable: Bool
        /// The socket takes more bytes (`EPOLLOUT`; `EVFILT_WRITE`).
        public let writable: Bool
    }

    #if os(Linux)
    private let epoll: Int32
    private let wakeup: Int32
    private var events = [epoll_event](repeating: epoll_event(), count: 256)
    #elseif canImport(Darwin)
    private let queue: Int32
    private var events = [kevent](repeating: kevent(), count: 256)
    #endif

    public init() {
        #if os(Linux)
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeup = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeup))
        epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event)
        #elseif canImport(Darwin)
        queue = kqueue()
        _ = fcntl(queue, F_SETFD, FD_CLOEXEC)
        change(0, filter: EVFILT_USER, flags: EV_ADD | EV_CLEAR)
        #endif
    }

    deinit {
        #if os(Linux)
        close(epoll)
        close(wakeup)
        #elseif canImport(Darwin)
        close(queue)
        #endif
    }

    /// Watches `descriptor` for reading (and the peer's end of stream).
    public func add(_ descriptor: Int32) {
        #if os(Linux)
        var event = epoll_event(events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue, data: epoll_data_t(fd: descriptor))
        epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event)
        #elseif canImport(Darwin)
        change(UInt(descriptor), filter: EVFILT_READ, flags: EV_ADD)
        #endif
    }

    /// Also watches `descriptor` for writing (`true`), or no longer (`false`).
    public func setWriteInterest(_ wanted: Bool, for descriptor: Int32) {
        #if os(Linux)
        var event = epoll_event(
            events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (wanted ? EPOLLOUT.rawValue : 0),
            data: epoll_data_t(fd: descriptor)
        )
        epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event)
        #elseif canImport(Darwin)
        change(UInt(descriptor), filter: EVFILT_WRITE, flags: wanted ? EV_ADD : EV_DELETE)
        #endif
    }

    /// Stops watching `descriptor` (before it is closed).
    public func remove(_ descriptor: Int32) {
        #if os(Linux)
        epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, nil)
        #elseif canImport(Darwin)
        change(UInt(descriptor), filter: EVFILT_READ, flags: EV_DELETE)
        // Fails harmlessly (ENOENT) when no write interest was set.
        change(UInt(descriptor), filter: EVFILT_WRITE, flags: EV_DELETE)
        #endif
    }

    /// Makes the current or next `wait` return; safe from any thread.
    public func wake() {
        #if os(Linux)
        var one: UInt64 = 1
        _ = write(wakeup, &one, 8)
        #elseif canImport(Darwin)
        var event = kevent(
            ident: 0,
            filter: Int16(EVFILT_USER),
            flags: 0,
            fflags: UInt32(NOTE_TRIGGER),
            data: 0,
            udata: nil
        )
        _ = kevent(queue, &event, 1, nil, 0, nil)
        #endif
    }

    /// Waits until a watched socket is ready, `wake` is called, or `timeoutMs` passes (-1: no limit), then calls
    /// `body` for each ready socket.
    /// - Returns: Whether `wake` was called since the last `wait`.
    public func wait(timeoutMs: Int32, _ body: (Event) -> Void) -> Bool {
        var woken = false
        #if os(Linux)
        let count = epoll_wait(epoll, &events, Int32(events.count), timeoutMs)
        guard count > 0 else { return false }
        for index in 0..<Int(count) {
            let descriptor = events[index].data.fd
            if descriptor == wakeup {
                var value: UInt64 = 0
                _ = read(wakeup, &value, 8)
                woken = true
                continue
            }
            let flags = events[index].events
            body(
                Event(
                    descriptor: descriptor,
                    readable: flags & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0,
                    writable: flags & EPOLLOUT.rawValue != 0
                )
            )
        }
        #elseif canImport(Darwin)
        var timeout = timespec(tv_sec: Int(timeoutMs / 1000), tv_nsec: Int(timeoutMs % 1000) * 1_000_000)
        let count = events.withUnsafeMutableBufferPointer { buffer in
            timeoutMs < 0
                ? kevent(queue, nil, 0, buffer.baseAddress, Int32(buffer.count), nil)
                : kevent(queue, nil, 0, buffer.baseAddress, Int32(buffer.count), &timeout)
        }
        guard count > 0 else { return false }
        for index in 0..<Int(count) {
            let event = events[index]
            switch Int32(event.filter) {
            case EVFILT_USER: woken = true
            case EVFILT_READ: body(Event(descriptor: Int32(event.ident), readable: true, writable: false))
            case EVFILT_WRITE: body(Event(descriptor: Int32(event.ident), readable: false, writable: true))
            default: continue
            }
        }
        #endif
        return woken
    }

    #if canImport(Darwin)
    private func change(_ ident: UInt, filter: Int32, flags: Int32) {
        var event = kevent(ident: ident, filter: Int16(filter), flags: UInt16(flags), fflags: 0, data: 0, udata: nil)
        _ = kevent(queue, &event, 1, nil, 0, nil)
    }
    #endif
}
