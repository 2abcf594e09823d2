import Foundation
import MockdPlatform

/// Puts a fully written folder in place of a mock set in one atomic step, and says where the old one went.
///
/// `FileSystem.exchange` swaps the staging folder and the set's folder in one step:
/// at every instant `mocks/<set>/` is either the old set or the new one, whatever kills the process. The old set
/// is then under the staging name and is removed; a kill before that leaves it there, and `MockSetRecovery` removes
/// it at the next start or import. Where the file system cannot exchange (`FileSystem.cannotExchange`), the old set is
/// renamed aside (`.NAME.replaced-…`) and the new one moved in; a kill between the two leaves no `mocks/<set>/`,
/// and `MockSetRecovery` renames the old set back.
enum MockSetSwap {
    /// How the set was put in place.
    enum Outcome {
        /// Exchanged atomically: `staging` now holds the old set.
        case exchanged
        /// Renamed aside then moved in (no atomic exchange on this file system): `retired` holds the old set.
        case renamed
    }

    /// Replaces the folder at `destination` (which exists) with `staging`.
    /// - Throws: The `rename(2)` error when neither way works; `destination` is then unchanged.
    static func replace(_ destination: URL, with staging: URL, retired: URL) throws -> Outcome {
        let code = FileSystem.exchange(staging.path, destination.path)
        if code == 0 { return .exchanged }
        guard FileSystem.cannotExchange(code) else {
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        let fileManager = FileManager.default
        try fileManager.moveItem(at: destination, to: retired)
        CrashPoint.reached("retired")
        do {
            try fileManager.moveItem(at: staging, to: destination)
        } catch {
            try? fileManager.moveItem(at: retired, to: destination)
            throw error
        }
        return .renamed
    }
}

/// Named points where a test can make the process die as `kill -9` would (`MOCKD_CRASH_AT=NAME`), to check that a
/// crash there loses nothing. Unset in normal use; costs one environment lookup at each point.
enum CrashPoint {
    static func reached(_ name: String) {
        guard let wanted = ProcessInfo.processInfo.environment["MOCKD_CRASH_AT"], wanted == name else { return }
        kill(getpid(), SIGKILL)
        // PID 1 of a PID namespace (a container's mockd) ignores signals it sent itself: end as abruptly.
        _exit(128 + SIGKILL)
    }
}
