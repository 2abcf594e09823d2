import Foundation
import MockdPlatform
import Testing

/// `ThreadName.startThread`: the thread carries its name where the system shows it (`top -H`, debuggers,
/// `/proc/…/comm`), from the first instruction of its body on.
struct ThreadNameTests {
    /// Written by the thread before it signals, read after the wait.
    private final class Seen: @unchecked Sendable {
        var name: String?
    }

    /// The calling thread's name as the system keeps it.
    private static func currentSystemName() -> String? {
        #if canImport(Darwin)
        var buffer = [CChar](repeating: 0, count: 64)
        guard pthread_getname_np(pthread_self(), &buffer, buffer.count) == 0 else { return nil }
        return String(cString: buffer)
        #else
        return (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
            .trimmingCharacters(in: .newlines)
        #endif
    }

    @Test func aStartedThreadRunsItsBodyUnderItsName() {
        let seen = Seen()
        let done = DispatchSemaphore(value: 0)
        ThreadName.startThread(named: "mockd-test") {
            seen.name = Self.currentSystemName()
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.name == "mockd-test")
    }
}
