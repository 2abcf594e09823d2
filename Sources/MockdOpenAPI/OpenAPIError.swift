/// A problem with an OpenAPI document or what is checked against it, for one line `file: location: message`.
public struct OpenAPIError: Error, Sendable, CustomStringConvertible {
    /// The document (or mock set file) as the user named it.
    public var file: String
    /// Where: `line 12, column 3` for YAML syntax, a JSON Pointer (`/paths/~1pets/get`) for structure.
    public var location: String
    public var message: String

    public init(file: String, location: String, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String { location.isEmpty ? "\(file): \(message)" : "\(file): \(location): \(message)" }
}
