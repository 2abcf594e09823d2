public import CPlatform
public import Foundation  // pthread_key_t: re-exported from Glibc on Linux and from Darwin on a Mac

/// The calling thread's pointer for one per-thread object read on every request (`RegexBudget`'s account, the
/// engine's scenario cache): one thread-local load, where `pthread_getspecific` and the lazy global holding its key
/// cost ~25 instructions a read. The slot only caches the value of a pthread key that its owner also sets, so the
/// key's destructor still frees the object when the thread ends.
public enum ThreadSlot: Int32, Sendable {
    case regexBudget = 0
    case scenarioCache = 1

    /// The calling thread's pointer, `nil` until `set(_:key:)`.
    @inlinable @inline(__always)
    public var value: UnsafeMutableRawPointer? { mockd_thread_slot(rawValue) }

    /// Sets the calling thread's pointer: `key`'s value (whose destructor frees it at thread exit) and this slot.
    public func set(_ value: UnsafeMutableRawPointer, key: pthread_key_t) {
        pthread_setspecific(key, value)
        mockd_set_thread_slot(rawValue, value)
    }

    /// Forgets the calling thread's pointer: called by the key's destructor as it frees the object, so that nothing
    /// run later in the thread's exit reads a freed pointer (it makes a new object, as with the key alone).
    public func clear() {
        mockd_set_thread_slot(rawValue, nil)
    }
}
