import CPlatform

/// Names the calling thread as the system shows it (debuggers, `top -H`, `/proc/PID/task/TID/comm` on Linux).
public enum ThreadName {
    /// - Parameter name: At most 15 bytes are kept on Linux, 63 on Darwin.
    public static func setCurrent(_ name: String) {
        _ = mockd_name_this_thread(name)
    }
}
