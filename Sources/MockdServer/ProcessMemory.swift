import CLinux

/// Process-wide memory housekeeping.
public enum ProcessMemory {
    /// Returns freed heap memory to the system (glibc `malloc_trim`). Parsing a large mock-set index leaves
    /// megabytes of freed buffers in malloc's arenas; after loading, the resident size should reflect what
    /// the daemon keeps.
    public static func returnFreedMemory() {
        _ = malloc_trim(0)
    }
}
