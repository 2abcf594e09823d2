import Foundation
import MockdCore

/// `mockd diff OLD NEW`: the changelog between two mock sets, two HAR files, or one of each.
struct Diff: MockdCommand, Equatable {
    var old: String
    var new: String
    var format: MockSetChangelog.Format
    var root: String?

    static let name = "diff"
    static let abstract: String? = "Show what changed between two mock sets or HAR recordings"
    static let synopsis = ["mockd diff <old> <new> [--format text|markdown|json]"]
    static let help = """
        OVERVIEW: Show what changed between two versions of an API: endpoints added and removed (method and path
        template, with their hosts), status codes added and removed per endpoint, structural changes of JSON
        bodies as JSON paths (field added, removed, type changed, array item shape changed), then value-only
        changes counted per endpoint and status. Placeholders ({{token}}, {{email}}, normalised values) never
        count as changes.

        <old> and <new> are each a mock set (a folder holding index.json, or a set name under mocks/) or a HAR
        file (compiled with import-har's defaults, hygiene on). Exit 0 when they are equal, 1 when they
        differ, 2 when a side cannot be read, 64 on a usage error — fit for a CI step.

        USAGE: mockd diff <old> <new> [--format text|markdown|json] [--root <dir>]

        OPTIONS:
          --format <format>       text (one line per change), markdown (for a pull request) or json. (default: text)
          --root <dir>            Folder holding mocks/ when a set name is given. (default: $MOCKD_ROOT, else the current directory)
          -h, --help              Show help information.
        """

    static func parse(_ arguments: [String], environment: [String: String]) throws -> Diff {
        var sides: [String] = []
        var format = MockSetChangelog.Format.text
        var root: String?
        var reader = ArgumentReader(arguments)
        while let argument = try reader.next() {
            switch argument {
            case "--format":
                let value = try reader.value(for: argument)
                guard let chosen = MockSetChangelog.Format(rawValue: value) else {
                    throw UsageError("--format must be text, markdown or json; got '\(value)'")
                }
                format = chosen
            case "--root": root = try reader.value(for: argument)
            default:
                if argument.hasPrefix("-") { throw UsageError.unknown(argument) }
                sides.append(argument)
            }
        }
        guard sides.count == 2 else { throw UsageError("diff needs two sides: mockd diff <old> <new>") }
        return Diff(old: sides[0], new: sides[1], format: format, root: root)
    }

    func run() -> ExitCode {
        let root = MockdRoot.resolve(option: self.root)
        do {
            let before = try MockSetSource.read(Self.locate(old, root: root), display: old)
            let after = try MockSetSource.read(Self.locate(new, root: root), display: new)
            let changelog = MockSetDiff.changelog(from: before, to: after)
            Output.standard(changelog.rendered(format, old: old, new: new))
            return changelog.isEmpty ? .success : .failure
        } catch {
            Output.errorLines(error)
            return .comparisonFailed
        }
    }

    /// A relative `side` under the root when it exists there (`mocks/shop`, or a bare set name under mocks/), else
    /// as given (relative to the current directory).
    static func locate(_ side: String, root: MockdRoot) -> URL {
        if side.hasPrefix("/") { return URL(fileURLWithPath: side) }
        let underRoot = side.contains("/") ? root.url.appendingPathComponent(side) : root.setURL(side)
        if FileManager.default.fileExists(atPath: underRoot.path) { return underRoot }
        return URL(fileURLWithPath: side)
    }
}
