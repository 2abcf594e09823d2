/// What a control token must be, wherever it comes from (`--control-token` of `serve`, `record`, `health` and
/// `mcp --attach`, or `MOCKD_CONTROL_TOKEN`): at least `minimumLength` visible ASCII characters (`!` to `~`), so
/// no space, control character or non-ASCII letter.
///
/// An empty token is the usual CI accident — `--control-token "$MOCKD_TOKEN"` with the secret unset on a fork's pull
/// request — and would otherwise serve the control API, with the app's recorded headers and bodies, to the network.
/// A token with spaces never survives the trip through an `Authorization` header unchanged (RFC 9110 §5.5 trims
/// them), and one that short can be guessed.
enum ControlTokenRule {
    /// The fewest characters a token may have: 16, what `openssl rand -hex 8` prints (`-hex 16` prints 32).
    static let minimumLength = 16

    /// `token`, checked.
    /// - Parameter source: The flag or variable it came from, named in the error.
    /// - Throws: `UsageError` with one line naming `source` and what is wrong.
    static func checked(_ token: String, source: String) throws -> String {
        let advice = "give at least \(minimumLength) visible characters, e.g. the output of `openssl rand -hex 16`"
        if token.allSatisfy({ $0 == " " || $0 == "\t" }) {
            throw UsageError(
                "\(source) is \(token.isEmpty ? "empty" : "blank") (an unset CI secret?): the control API would take any caller's word for it; \(advice)"
            )
        }
        if token.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw UsageError("\(source) must not contain control characters such as a newline")
        }
        if token.unicodeScalars.contains(where: { $0.value == 0x20 || $0.value > 0x7E }) {
            throw UsageError(
                "\(source) must be visible ASCII characters only (letters, digits, punctuation; no spaces): \(advice)"
            )
        }
        if token.utf8.count < minimumLength {
            throw UsageError("\(source) has \(token.utf8.count) characters, fewer than \(minimumLength): \(advice)")
        }
        return token
    }
}
