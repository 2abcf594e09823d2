/// One command of `mockd`: its options are the type's properties; it says how to read them from the
/// command line, how it appears in help, and what it does.
///
/// To add a command, write a type conforming to this in `Commands/` and add one row to `Mockd.commands`:
/// dispatch, the top-level USAGE and the COMMANDS section follow from the row.
protocol MockdCommand: Sendable {
    /// The word after `mockd` that selects the command: `record`.
    static var name: String { get }
    /// What the command does, one sentence for the top-level COMMANDS section (which adds the pointer to its
    /// `--help`); `nil` leaves it out (`serve`, whose help is the top-level help).
    static var abstract: String? { get }
    /// Its lines in the top-level USAGE: each a command line starting `mockd`, or a continuation of the line
    /// before it indented to follow `mockd `.
    static var synopsis: [String] { get }
    /// The whole `mockd NAME --help` text: OVERVIEW, USAGE, OPTIONS…, no final line feed.
    static var help: String { get }

    /// The options in `arguments`, the ones after the command's name.
    /// - Parameter environment: The process environment, for `MOCKD_*` defaults (see `EnvironmentDefaults`).
    /// - Throws: `UsageError` for unknown flags, missing or bad values, contradictions and invalid `MOCKD_*`
    ///   values; `InformationRequest` for `-h`/`--help` (from `ArgumentReader`) or `--version`.
    static func parse(_ arguments: [String], environment: [String: String]) throws -> Self

    /// Does the work, printing through `Output`.
    /// - Returns: `.success`; `.failure` after printing a runtime failure; `.usage` for a usage error only
    ///   found once running.
    func run() -> ExitCode
}

/// A flag asking for information instead of work; `Mockd.main` answers it on stdout and exits 0.
///
/// Thrown while parsing, so the flags before it are still checked, as they always were.
enum InformationRequest: Error, Equatable {
    /// `-h` or `--help`: the command's `help`.
    case help
    /// `--version` (`serve` only): the version.
    case version
}
