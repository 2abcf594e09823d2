#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock held for a writer's life (`flock(2)`, the same call on Linux and Darwin): the kernel
/// drops it when the process ends, however it ends (`kill -9`, a crash, a container stopped), so a lock that can be
/// taken names a writer that is gone. A PID cannot: in a container every `mockd` is PID 1, and a PID is reused.
///
/// One lock per open file description: another descriptor of this same process conflicts with it like another
/// process would, so a thread's check never mistakes this process's own running write for a dead one.
public final class FileLock: @unchecked Sendable {
    /// The open file holding the lock; -1 once released.
    private var descriptor: Int32
    /// The lock file this lock made and removes, `nil` for a lock on a descriptor the caller owns (and closes).
    private let path: String?

    private init(descriptor: Int32, path: String?) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { release() }

    /// Creates `path` (mode 0600) and locks it; `nil` when it cannot be created or someone else holds it.
    ///
    /// The path is checked to still name the locked file afterwards: a clean-up that removed a lock file it found
    /// free, between this process creating and locking it, would otherwise leave this lock on a file nobody sees.
    public static func acquire(path: String) -> FileLock? {
        for _ in 0..<8 {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return nil }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)
                return nil
            }
            var held = stat()
            var named = stat()
            if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino,
                held.st_dev == named.st_dev
            {
                return FileLock(descriptor: descriptor, path: path)
            }
            close(descriptor)
        }
        return nil
    }

    /// Locks the open file `descriptor` (which the caller keeps and closes); `nil` when someone else holds it.
    public static func lock(descriptor: Int32) -> FileLock? {
        flock(descriptor, LOCK_EX | LOCK_NB) == 0 ? FileLock(descriptor: descriptor, path: nil) : nil
    }

    /// Whether a live process (this one included) holds the lock on `path`. A missing file is not held.
    public static func isHeld(path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return false }
        return errno == EWOULDBLOCK || errno == EAGAIN || errno == EINTR
    }

    /// Removes the lock file (when this lock made it) and drops the lock, in that order: nobody can take a lock on
    /// a file that is gone, so its folder is never taken for abandoned while the writer is still at it.
    public func release() {
        guard descriptor >= 0 else { return }
        if let path {
            unlink(path)
            close(descriptor)
        } else {
            // The caller's descriptor: unlocked, left open.
            flock(descriptor, LOCK_UN)
        }
        descriptor = -1
    }
}
