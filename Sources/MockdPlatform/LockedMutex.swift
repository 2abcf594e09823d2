#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The operating system's plain mutex, allocated once so it never moves: `os_unfair_lock` on Darwin,
/// `pthread_mutex_t` (default attributes) on Linux.
final class PlatformLock: @unchecked Sendable {
    #if canImport(Darwin)
    private let handle: UnsafeMutablePointer<os_unfair_lock>
    #else
    private let handle: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    init() {
        #if canImport(Darwin)
        handle = .allocate(capacity: 1)
        handle.initialize(to: os_unfair_lock())
        #else
        handle = .allocate(capacity: 1)
        handle.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(handle, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        #endif
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(handle)
        #endif
        handle.deinitialize(count: 1)
        handle.deallocate()
    }

    @inline(__always)
    func lock() {
        #if canImport(Darwin)
        os_unfair_lock_lock(handle)
        #else
        pthread_mutex_lock(handle)
        #endif
    }

    @inline(__always)
    func unlock() {
        #if canImport(Darwin)
        os_unfair_lock_unlock(handle)
        #else
        pthread_mutex_unlock(handle)
        #endif
    }
}

/// A value behind a lock, with the API of `Synchronization.Mutex` that the daemon uses (`init(_:)`,
/// `withLock(_:)`), for platforms without Synchronization (Darwin below macOS 15; `Mutex` there). Compiled and
/// tested on Linux too, over `pthread_mutex_t`.
///
/// A class, where `Synchronization.Mutex` is a non-copyable struct: a `let` of either is used the same way.
/// - Important: Not reentrant: calling `withLock` inside `body` on the same mutex deadlocks, as with `Mutex`.
public final class LockedMutex<Value>: @unchecked Sendable {
    private let lock = PlatformLock()
    private var value: Value

    public init(_ initialValue: Value) {
        value = initialValue
    }

    /// Runs `body` with the value while holding the lock; returns what `body` returns.
    /// - Throws: What `body` throws (the lock is released first).
    @inline(__always)
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
