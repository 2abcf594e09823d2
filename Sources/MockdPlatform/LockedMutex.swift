import CPlatform

/// The operating system's plain mutex, allocated once so it never moves (CPlatform: `pthread_mutex_t` on Linux,
/// `os_unfair_lock` on Darwin).
final class PlatformLock: @unchecked Sendable {
    private let handle: OpaquePointer

    init() {
        handle = mockd_lock_create()
    }

    deinit {
        mockd_lock_destroy(handle)
    }

    @inline(__always)
    func lock() {
        mockd_lock_lock(handle)
    }

    @inline(__always)
    func unlock() {
        mockd_lock_unlock(handle)
    }
}

/// A value behind a lock, with the API of `Synchronization.Mutex` that the daemon uses (`init(_:)`,
/// `withLock(_:)`), for platforms without Synchronization (Darwin below macOS 15; `Mutex` there). Compiled and
/// tested on Linux too (`PlatformLock`).
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
