import CPlatform

/// Process-wide memory housekeeping, one seam.
public enum ProcessMemory {
    /// Returns freed heap memory to the system. Parsing a large mock-set index leaves megabytes of freed buffers in
    /// the allocator; after loading, the resident size should reflect what the daemon keeps.
    ///
    /// Linux: glibc `malloc_trim(0)`. Darwin: `malloc_zone_pressure_relief(nil, 0)`, which asks every malloc zone to
    /// give back what it can (the Darwin allocator also does so by itself under memory pressure).
    public static func returnFreedMemory() {
        mockd_return_freed_memory()
    }
}
