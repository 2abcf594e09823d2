/// One way an instance breaks its schema.
///
/// `instancePath` and `schemaPath` are RFC 6901 JSON Pointers (`/items/0/name`, `/properties/items/type`); the
/// schema path follows the keywords evaluation took, through `$ref` targets.
public struct SchemaViolation: Sendable, Hashable, CustomStringConvertible {
    /// Where in the instance: `""` for the whole value.
    public var instancePath: String
    /// The keyword that failed, as a pointer from the root schema (`/properties/age/minimum`).
    public var schemaPath: String
    /// What is wrong, for a person (`expected integer, got string`).
    public var message: String

    public init(instancePath: String, schemaPath: String, message: String) {
        self.instancePath = instancePath
        self.schemaPath = schemaPath
        self.message = message
    }

    /// `instancePath: message`, with `$` standing for the root (`$/items/0/name: expected string, got null`).
    public var description: String { "$\(instancePath): \(message)" }
}
