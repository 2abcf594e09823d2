// The daemon's lock and atomics, one seam: `Mutex` and `Atomic` mean Synchronization's on Linux, where the
// toolchain's runtime ships them, and `LockedMutex` / `LockedAtomic` (below) on Darwin, where Synchronization needs
// macOS 15 and the daemon runs from macOS 13. The daemon's modules import this module instead of Synchronization;
// on Linux nothing changes (the same types, re-exported), so the request path costs exactly what it did.
#if os(Linux)
@_exported import Synchronization
#else
/// `Synchronization.Mutex` below macOS 15: `LockedMutex`.
public typealias Mutex<Value> = LockedMutex<Value>
/// `Synchronization.Atomic` below macOS 15: `LockedAtomic` (a lock per value; the daemon's atomics are counters and
/// flags off the hot path of a plain stub, see CONTRIBUTING.md, "Platforms").
public typealias Atomic<Value: Sendable> = LockedAtomic<Value>
#endif
