/// A problem with a file the user gave mockd, located by file and JSON path: a scenario or mock set
/// (`ConfigError`), a HAR (`HARImportError`), WireMock mappings (`WireMockImportError`), a set being written
/// (`MockSetWriteError`). `Code` says what kind of problem it is, per domain.
///
/// `description` is the one line printed to the user: `file: JSON path: message`.
public struct LocatedError<Code: Hashable & Sendable & CustomStringConvertible>: Error, Sendable,
    CustomStringConvertible
{
    public let code: Code
    /// The file as the user named it, or relative to the root (`configs/x.json`, `mocks/chat/`).
    public let file: String
    /// JSON path of the offending value (`stubs[3].request.path`, `log.entries[4].response`), or `nil` for the
    /// whole file.
    public let jsonPath: String?
    /// What is wrong, and where it helps, what to do.
    public let message: String
    /// The underlying failure (the file system's, the parser's), when there is one.
    public let cause: (any Error)?

    public init(_ code: Code, file: String, jsonPath: String? = nil, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.file = file
        self.jsonPath = jsonPath
        self.message = message
        self.cause = cause
    }

    /// Control bytes are escaped as the log line escapes them (`escapingControls`): messages quote values from the
    /// user's files.
    public var description: String {
        if let jsonPath, !jsonPath.isEmpty { return escapingControls("\(file): \(jsonPath): \(message)") }
        return escapingControls("\(file): \(message)")
    }
}
