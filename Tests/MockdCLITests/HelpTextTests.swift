import Foundation
import MockdTestSupport
import Testing

@testable import mockd

/// Every `--help` text pinned whole as a recorded snapshot, `Tests/Snapshots/help/<command>.txt` (`serve.txt` is the
/// top-level `mockd --help`), as swift-argument-parser's test helpers pin theirs: the text is written once, in the
/// command, and any change to it, or to the COMMANDS and USAGE generated from `Mockd.commands`, shows here and in the
/// snapshot's diff for review.
///
/// After changing a help text on purpose, re-record and review the diff:
///
///     MOCKD_RECORD_SNAPSHOTS=1 swift test --filter HelpTextTests    # rewrites the files, fails once
///     git diff Tests/Snapshots/help
struct HelpTextTests {
    static let folder = Paths.packageRoot.appendingPathComponent("Tests/Snapshots/help")

    /// Set (non-empty) to rewrite the snapshots from the commands instead of comparing.
    static let recording = !(ProcessInfo.processInfo.environment["MOCKD_RECORD_SNAPSHOTS"] ?? "").isEmpty

    /// What `mockd <name> --help` prints: the help and a newline.
    @Test(arguments: Mockd.commands.map { $0.name })
    func everyCommandsHelpIsItsSnapshot(_ name: String) throws {
        let command = try #require(Mockd.commands.first { $0.name == name })
        let snapshot = Self.folder.appendingPathComponent(name + ".txt")
        let actual = command.help + "\n"
        if Self.recording {
            try Data(actual.utf8).write(to: snapshot)
            Issue.record("re-recorded \(snapshot.path): review its diff, then run again without MOCKD_RECORD_SNAPSHOTS")
            return
        }
        guard let expected = try? String(contentsOf: snapshot, encoding: .utf8) else {
            Issue.record(
                "no snapshot of `mockd \(name) --help` at \(snapshot.path): record it with MOCKD_RECORD_SNAPSHOTS=1"
            )
            return
        }
        if let difference = Self.firstDifference(expected: expected, actual: actual) {
            let advice = "a change on purpose: re-record with MOCKD_RECORD_SNAPSHOTS=1 and review the diff"
            Issue.record("`mockd \(name) --help` is not Tests/Snapshots/help/\(name).txt: \(difference) (\(advice))")
        }
    }

    /// The binary prints exactly the snapshot, on stdout, exit 0: `mockd --help` the top-level one, and
    /// `mockd <name> --help` each command's.
    @Test func theBinaryPrintsEachSnapshot() throws {
        guard !Self.recording else { return }
        for command in Mockd.commands {
            let snapshot = try String(
                contentsOf: Self.folder.appendingPathComponent(command.name + ".txt"),
                encoding: .utf8
            )
            let arguments = command.name == Mockd.defaultCommand.name ? ["--help"] : [command.name, "--help"]
            let result = try ProcessRunner.mockd(arguments)
            #expect(result.status == 0, "mockd \(arguments.joined(separator: " "))")
            #expect(result.stderr == "", "mockd \(arguments.joined(separator: " "))")
            if let difference = Self.firstDifference(expected: snapshot, actual: result.stdout) {
                Issue.record("`mockd \(arguments.joined(separator: " "))` printed something else: \(difference)")
            }
        }
    }

    /// A snapshot without a command (renamed or removed) would pin nothing: each file names a command.
    @Test func everySnapshotNamesACommand() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { !$0.hasPrefix(".") }
        let expected = Set(Mockd.commands.map { $0.name + ".txt" })
        #expect(Set(files).subtracting(expected).sorted() == [], "snapshots without a command in Mockd.commands")
    }

    @Test func theTopLevelHelpIsTheDefaultCommands() {
        #expect(Mockd.defaultCommand.name == Serve.name)
        #expect(Mockd.select(["--help"]).command.name == Serve.name)
    }

    /// `line N: pinned "…" / now "…"` for the first line that differs, or `nil` when the texts are equal.
    static func firstDifference(expected: String, actual: String) -> String? {
        guard expected != actual else { return nil }
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for line in 0..<max(old.count, new.count) {
            let pinned = line < old.count ? "\"\(old[line])\"" : "(end of text)"
            let now = line < new.count ? "\"\(new[line])\"" : "(end of text)"
            if pinned != now { return "line \(line + 1): pinned \(pinned), now \(now)" }
        }
        return "(they differ in a way no line shows)"
    }
}
