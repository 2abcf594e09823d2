import Foundation
import MockdPlatform
import Testing

/// `ThreadName.startThread`: the thread runs its body under its name where the system shows it (`ps -L`, `top -H`,
/// debuggers).
struct ThreadNameTests {
    @Test func aStartedThreadRunsItsBodyUnderItsName() {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        ThreadName.startThread(named: "mockd-test") {
            started.signal()
            release.wait()
        }
        #expect(started.wait(timeout: .now() + 10) == .success)
        // The system's own list of the process's threads (Linux; Darwin shows no thread list here: nil).
        let threads = ProcessInspection.blockedSignals(of: ProcessInfo.processInfo.processIdentifier)
        release.signal()
        if let threads {
            #expect(threads.filter { $0.thread == "mockd-test" }.count == 1, "\(threads.map(\.thread))")
        }
    }
}
