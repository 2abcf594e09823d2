/// Why WireMock mappings could not be imported, located by file and JSON path.
///
/// `description` is the one line printed to the user: `file: JSON path: message`. When an import fails with
/// one of these, nothing has been written.
public struct WireMockImportError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String { case fileNotFound, unreadable, notJSON, invalidMapping, nothingToImport, writeFailed, outputExists }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The file or folder does not exist, or a folder holds no `*.json` file.
        public static let fileNotFound = Code(.fileNotFound)
        /// A file exists but cannot be read.
        public static let unreadable = Code(.unreadable)
        /// A file is not JSON.
        public static let notJSON = Code(.notJSON)
        /// A file is JSON but not a WireMock mapping: wrong types, a missing `request`, an invalid regex…
        public static let invalidMapping = Code(.invalidMapping)
        /// Every mapping was skipped; nothing would be written.
        public static let nothingToImport = Code(.nothingToImport)
        /// Writing the mock set or the scenario failed.
        public static let writeFailed = Code(.writeFailed)
        /// The mock set or scenario exists and `--force` was not given.
        public static let outputExists = Code(.outputExists)

        public var description: String { value.rawValue }
    }

    public let code: Code
    /// The file as given on the command line (a folder's files as `folder/relative/path.json`).
    public let file: String
    /// JSON path of the offending value (`mappings[2].request.urlPattern`), or `nil` for the whole file.
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
