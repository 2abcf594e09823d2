/// Why the server could not start, written for the person who has to fix it.
public struct ServerError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String { case portInUse, permissionDenied, invalidAddress, socketFailed, daemonFailed }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Another process listens on the address and port.
        public static let portInUse = Code(.portInUse)
        /// Binding needs privileges (ports below 1024).
        public static let permissionDenied = Code(.permissionDenied)
        /// `--host` is not an address of this machine.
        public static let invalidAddress = Code(.invalidAddress)
        /// The listening socket could not be created.
        public static let socketFailed = Code(.socketFailed)
        /// libmicrohttpd refused to start.
        public static let daemonFailed = Code(.daemonFailed)

        public var description: String { value.rawValue }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
