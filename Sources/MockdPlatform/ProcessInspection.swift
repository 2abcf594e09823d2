import CPlatform

/// What the system shows about another process, for tests and diagnostics. Each answer is `nil` where the system
/// cannot tell (a process gone, or a system without that view).
public enum ProcessInspection {
    /// How many threads process `pid` has.
    public static func threadCount(of pid: Int32) -> Int? {
        let count = mockd_process_thread_count(pid)
        return count < 0 ? nil : count
    }

    /// How many descriptors process `pid` has open.
    public static func descriptorCount(of pid: Int32) -> Int? {
        let count = mockd_process_descriptor_count(pid)
        return count < 0 ? nil : count
    }

    /// The peak resident size of process `pid`, in bytes (Linux `VmHWM`; Darwin's lifetime peak footprint).
    public static func peakResidentBytes(of pid: Int32) -> Int? {
        let bytes = mockd_process_peak_resident_bytes(pid)
        return bytes < 0 ? nil : Int(bytes)
    }

    /// Each thread of process `pid` with the signals it blocks (bit N-1 for signal N); `nil` where the system shows
    /// no other process's signal masks (Darwin).
    public static func blockedSignals(of pid: Int32) -> [(thread: String, blocked: UInt64)]? {
        var threads: [(thread: String, blocked: UInt64)] = []
        let status = withUnsafeMutablePointer(to: &threads) { pointer in
            mockd_process_thread_signal_masks(
                pid,
                { context, name, blocked in
                    guard let context, let name else { return }
                    context.assumingMemoryBound(to: [(thread: String, blocked: UInt64)].self).pointee.append(
                        (String(cString: name), blocked)
                    )
                },
                pointer
            )
        }
        return status == 0 ? threads : nil
    }

    /// The lowest port a process without privileges may listen on (0: any).
    public static var lowestUnprivilegedPort: Int { Int(mockd_lowest_unprivileged_port()) }
}
