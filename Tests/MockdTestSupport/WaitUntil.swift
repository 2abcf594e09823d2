public import Foundation

/// What `waitUntil` throws when its condition still does not hold at the deadline.
public struct WaitTimeout: Error, CustomStringConvertible {
    public let description: String
}

/// Polls `condition` until it holds: the one way a test waits for something it can observe (a journal count,
/// `inFlight` in the health answer, a line on a daemon's output, a file appearing), instead of sleeping for a
/// time that is too long on a quiet machine and too short on a loaded one.
///
/// - Parameters:
///   - timeout: How long to keep trying, in seconds: a bound for a broken build, not a wait.
///   - interval: The pause between two polls, in seconds (10 ms).
///   - what: What is awaited, for the message when it never happens.
///   - condition: Read once at once, then after each pause.
/// - Throws: `WaitTimeout` naming `what`, the time waited and the caller's line; anything `condition` throws.
public func waitUntil(
    timeout: TimeInterval,
    interval: TimeInterval = 0.01,
    _ what: @autoclosure () -> String = "the condition",
    fileID: String = #fileID,
    line: Int = #line,
    _ condition: () throws -> Bool
) throws {
    let start = DispatchTime.now().uptimeNanoseconds
    let deadline = start + UInt64(max(0, timeout) * 1_000_000_000)
    while true {
        if try condition() { return }
        guard DispatchTime.now().uptimeNanoseconds < deadline else { break }
        // The poll interval: waitUntil is the only place in the tests that pauses, and only between two reads of
        // the condition it waits for.
        Thread.sleep(forTimeInterval: interval)
    }
    let waited = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000_000
    throw WaitTimeout(
        description: "\(fileID):\(line): waited \(String(format: "%.1f", waited)) s for \(what()); it did not happen"
    )
}
