import Foundation  // POSIX poll(2) and pipe(2): re-exported from Glibc on Linux and from Darwin on a Mac

/// `EventPoller`'s portable loop: `poll(2)` over an array of watched sockets, with a pipe for the wake-up. The loop
/// on a Mac, and on Linux with `MOCKD_EVENT_LOOP=poll` (how the tests run it here).
final class PollLoop {
    /// The watched sockets; entry 0 is the wake-up pipe's reading end.
    private var watched: [pollfd]
    /// Where each watched descriptor sits in `watched`.
    private var positions: [Int32: Int] = [:]
    /// The ready sockets of one `wait`, copied out so that `body` may add and remove sockets.
    private var ready: [EventPoller.Event] = []
    private let wakeupRead: Int32
    private let wakeupWrite: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        let made = pipe(&ends) == 0
        precondition(made, "EventPoller: pipe failed (errno \(errno))")
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        wakeupRead = ends[0]
        wakeupWrite = ends[1]
        watched = [pollfd(fd: wakeupRead, events: Int16(POLLIN), revents: 0)]
    }

    deinit {
        close(wakeupRead)
        close(wakeupWrite)
    }

    /// Watches `descriptor` for reading (and the peer's end of stream).
    func add(_ descriptor: Int32) {
        if let position = positions[descriptor] {
            watched[position].events = Int16(POLLIN)
            return
        }
        positions[descriptor] = watched.count
        watched.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
    }

    /// Also watches `descriptor` for writing (`true`), or no longer (`false`).
    func setWriteInterest(_ wanted: Bool, for descriptor: Int32) {
        guard let position = positions[descriptor] else { return }
        watched[position].events = Int16(POLLIN) | (wanted ? Int16(POLLOUT) : 0)
    }

    /// Stops watching `descriptor` (before it is closed).
    func remove(_ descriptor: Int32) {
        guard let position = positions.removeValue(forKey: descriptor) else { return }
        let last = watched.count - 1
        if position != last {
            watched[position] = watched[last]
            positions[watched[position].fd] = position
        }
        watched.removeLast()
    }

    /// Makes the current or next `wait` return; safe from any thread.
    func wake() {
        var one: UInt8 = 1
        // A full pipe (EAGAIN) already holds a wake-up.
        _ = write(wakeupWrite, &one, 1)
    }

    /// Waits until a watched socket is ready, `wake` is called, or `timeoutMs` passes (-1: no limit), then calls
    /// `body` for each ready socket.
    /// - Returns: Whether `wake` was called since the last `wait`.
    func wait(timeoutMs: Int32, _ body: (EventPoller.Event) -> Void) -> Bool {
        let count = watched.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeoutMs) }
        guard count > 0 else { return false }
        var woken = false
        if watched[0].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wakeupRead, &drain, drain.count) > 0 {}
            woken = true
        }
        ready.removeAll(keepingCapacity: true)
        var remaining = Int(count) - (woken ? 1 : 0)
        var index = 1
        while remaining > 0, index < watched.count {
            let flags = Int32(watched[index].revents)
            if flags != 0 {
                remaining -= 1
                ready.append(
                    EventPoller.Event(
                        descriptor: watched[index].fd,
                        readable: flags & (Int32(POLLIN) | Int32(POLLHUP) | Int32(POLLERR) | Int32(POLLNVAL)) != 0,
                        writable: flags & Int32(POLLOUT) != 0
                    )
                )
            }
            index += 1
        }
        for event in ready { body(event) }
        return woken
    }
}
