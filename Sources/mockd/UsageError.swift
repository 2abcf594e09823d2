/// A mistake on the command line; printed as one line plus a pointer to `--help`, exit code 64.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
