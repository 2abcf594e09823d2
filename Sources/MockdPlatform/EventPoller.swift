import Foundation  // getenv

/// The WebSocket reactor's event loop: readiness of many sockets plus a wake-up other threads can send.
///
/// Two loops behind one type. `PollLoop` (`poll(2)` and a pipe) is portable and is what runs on a Mac; on Linux
/// `EpollLoop` (`epoll`, level-triggered, and an `eventfd`) runs by default, because at 1,000 open WebSockets the
/// poll loop cost the daemon 10–45% more CPU time (scripts/bench/websocket; docs/BENCHMARKS.md), over the 5% that
/// one loop for both systems was allowed. `MOCKD_EVENT_LOOP=poll` selects the portable loop on Linux, so the loop a
/// Mac runs is tested here (`EventPollerTests`, `WebSocketTests` on the poll loop).
///
/// One thread calls `wait`, `add`, `setWriteInterest` and `remove`; any thread may call `wake`.
public final class EventPoller: @unchecked Sendable {
    /// One ready socket.
    public struct Event {
        public let descriptor: Int32
        /// Data, the end of the stream or an error is waiting (`POLLIN`/`POLLHUP`/`POLLERR`; `EPOLLIN`/…).
        public let readable: Bool
        /// The socket takes more bytes (`POLLOUT`; `EPOLLOUT`).
        public let writable: Bool
    }

    /// Which loop runs.
    public enum Loop: String, Sendable, CaseIterable {
        /// `poll(2)`: every system.
        case poll
        /// `epoll(7)`: Linux only.
        case epoll

        /// The loops this system has, the default first.
        public static var available: [Loop] {
            #if os(Linux)
            [.epoll, .poll]
            #else
            [.poll]
            #endif
        }

        /// `MOCKD_EVENT_LOOP` when it names an available loop, else this system's default.
        public static var selected: Loop {
            let named = getenv("MOCKD_EVENT_LOOP").flatMap { Loop(rawValue: String(cString: $0)) }
            return named.flatMap { available.contains($0) ? $0 : nil } ?? available[0]
        }
    }

    public let loop: Loop
    private let portable: PollLoop?
    #if os(Linux)
    private let linux: EpollLoop?
    #endif

    /// - Parameter loop: Which loop to run; one this system lacks falls back to `poll`.
    public init(loop: Loop = .selected) {
        self.loop = Loop.available.contains(loop) ? loop : .poll
        portable = self.loop == .poll ? PollLoop() : nil
        #if os(Linux)
        linux = self.loop == .epoll ? EpollLoop() : nil
        #endif
    }

    /// Watches `descriptor` for reading (and the peer's end of stream).
    public func add(_ descriptor: Int32) {
        #if os(Linux)
        if let linux { return linux.add(descriptor) }
        #endif
        portable?.add(descriptor)
    }

    /// Also watches `descriptor` for writing (`true`), or no longer (`false`).
    public func setWriteInterest(_ wanted: Bool, for descriptor: Int32) {
        #if os(Linux)
        if let linux { return linux.setWriteInterest(wanted, for: descriptor) }
        #endif
        portable?.setWriteInterest(wanted, for: descriptor)
    }

    /// Stops watching `descriptor` (before it is closed).
    public func remove(_ descriptor: Int32) {
        #if os(Linux)
        if let linux { return linux.remove(descriptor) }
        #endif
        portable?.remove(descriptor)
    }

    /// Makes the current or next `wait` return; safe from any thread.
    public func wake() {
        #if os(Linux)
        if let linux { return linux.wake() }
        #endif
        portable?.wake()
    }

    /// Waits until a watched socket is ready, `wake` is called, or `timeoutMs` passes (-1: no limit), then calls
    /// `body` for each ready socket.
    /// - Returns: Whether `wake` was called since the last `wait`.
    public func wait(timeoutMs: Int32, _ body: (Event) -> Void) -> Bool {
        #if os(Linux)
        if let linux { return linux.wait(timeoutMs: timeoutMs, body) }
        #endif
        return portable?.wait(timeoutMs: timeoutMs, body) ?? false
    }
}
