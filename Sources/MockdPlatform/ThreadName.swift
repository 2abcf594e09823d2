#if os(Linux)
import CLinux
#elseif canImport(Darwin)
import Darwin
#endif

/// Names the calling thread as the system shows it (`/proc/PID/task/TID/comm`, debuggers, `top -H`).
public enum ThreadName {
    /// - Parameter name: At most 15 bytes are kept on Linux.
    public static func setCurrent(_ name: String) {
        #if os(Linux)
        _ = mockd_name_this_thread(name)
        #elseif canImport(Darwin)
        _ = pthread_setname_np(name)
        #endif
    }
}
