/// Process exit codes, following sysexits(3) for usage errors.
enum ExitCode: Int32 {
    /// Success.
    case success = 0
    /// A runtime failure: bad file, port in use, import error.
    case failure = 1
    /// The command line was wrong (`EX_USAGE`).
    case usage = 64
}
