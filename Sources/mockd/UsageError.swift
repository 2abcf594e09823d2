/// A mistake on the command line; printed as one line plus a pointer to `--help`, exit code 64.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }

    /// An argument no case of the command's parser took: `unknown option '--x'` for a flag, `unexpected
    /// argument 'x'` for anything else.
    static func unknown(_ argument: String) -> UsageError {
        argument.hasPrefix("-")
            ? UsageError("unknown option '\(argument)'") : UsageError("unexpected argument '\(argument)'")
    }
}
