/// Several problems found in one load, printed one per line.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    public let errors: [ConfigError]

    public init(_ errors: [ConfigError]) {
        self.errors = errors
    }

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
