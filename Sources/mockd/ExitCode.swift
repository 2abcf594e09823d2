/// Process exit codes, following sysexits(3) for usage errors.
enum ExitCode: Int32 {
    /// Success.
    case success = 0
    /// A runtime failure: bad file, port in use, import error.
    case failure = 1
    /// The command line was wrong (`EX_USAGE`).
    /// `mockd diff` and `check` could not compare (a side unreadable): 2, as diff(1) and cmp(1) exit.
    case comparisonFailed = 2
    case usage = 64
}
