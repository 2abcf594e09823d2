/// Why a file could not be imported as a HAR, located by file and JSON path or entry index.
///
/// `description` is the one line printed to the user: `file: JSON path: message`.
public struct HARImportError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String { case fileNotFound, unreadable, notJSON, notHAR, nothingToImport, writeFailed, setExists }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The HAR file does not exist.
        public static let fileNotFound = Code(.fileNotFound)
        /// The HAR file exists but cannot be read.
        public static let unreadable = Code(.unreadable)
        /// The file is not JSON (truncated, JSONP-wrapped, binary…).
        public static let notJSON = Code(.notJSON)
        /// The file is JSON but not a HAR log (no `log.entries`, wrong types).
        public static let notHAR = Code(.notHAR)
        /// Every entry was skipped or filtered out.
        public static let nothingToImport = Code(.nothingToImport)
        /// Writing the mock set failed; nothing was left half-written.
        public static let writeFailed = Code(.writeFailed)
        /// The target mock set exists and `--force` was not given.
        public static let setExists = Code(.setExists)

        public var description: String { value.rawValue }
    }

    public let code: Code
    public let file: String
    /// JSON path (`log.entries[4].response`) or `nil`.
    public let jsonPath: String?
    public let message: String

    public init(_ code: Code, file: String, jsonPath: String? = nil, message: String) {
        self.code = code
        self.file = file
        self.jsonPath = jsonPath
        self.message = message
    }

    public var description: String {
        if let jsonPath, !jsonPath.isEmpty { return "\(file): \(jsonPath): \(message)" }
        return "\(file): \(message)"
    }
}
