import CPlatform
import Foundation

/// Names the calling thread as the system shows it (debuggers, `top -H`, `/proc/PID/task/TID/comm` on Linux).
public enum ThreadName {
    /// - Parameter name: At most 15 bytes are kept on Linux, 63 on Darwin.
    public static func setCurrent(_ name: String) {
        _ = mockd_name_this_thread(name)
    }

    /// Starts a thread that names itself `name` and runs `body`. (`Thread.name` never reaches the name the system
    /// shows on Linux: set from the thread itself, it does.)
    /// - Parameter name: At most 15 bytes are kept on Linux, 63 on Darwin.
    public static func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            setCurrent(name)
            body()
        }
        thread.name = name
        thread.start()
    }
}
