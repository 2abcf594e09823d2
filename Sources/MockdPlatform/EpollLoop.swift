#if os(Linux)
import CPlatform
import Foundation

/// `EventPoller`'s Linux loop: `epoll` (level-triggered) with an `eventfd` for the wake-up.
final class EpollLoop {
    private let epoll: Int32
    private let wakeup: Int32
    private var events = [epoll_event](repeating: epoll_event(), count: 256)

    init() {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeup = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeup))
        epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event)
    }

    deinit {
        close(epoll)
        close(wakeup)
    }

    func add(_ descriptor: Int32) {
        var event = epoll_event(events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue, data: epoll_data_t(fd: descriptor))
        epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event)
    }

    func setWriteInterest(_ wanted: Bool, for descriptor: Int32) {
        var event = epoll_event(
            events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (wanted ? EPOLLOUT.rawValue : 0),
            data: epoll_data_t(fd: descriptor)
        )
        epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event)
    }

    func remove(_ descriptor: Int32) {
        epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, nil)
    }

    func wake() {
        var one: UInt64 = 1
        _ = write(wakeup, &one, 8)
    }

    func wait(timeoutMs: Int32, _ body: (EventPoller.Event) -> Void) -> Bool {
        var woken = false
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
                EventPoller.Event(
                    descriptor: descriptor,
                    readable: flags & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0,
                    writable: flags & EPOLLOUT.rawValue != 0
                )
            )
        }
        return woken
    }
}
#endif
