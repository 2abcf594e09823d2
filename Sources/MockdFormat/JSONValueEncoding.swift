public import Foundation

/// Compact, key-sorted JSON for inline `json` bodies, WebSocket and SSE payloads: the bytes mockd serves for a
/// `JSONValue`, the same on every run.
public enum JSONValueEncoding {
    /// `value` as compact UTF-8 JSON with sorted keys and unescaped slashes.
    /// - Throws: `EncodingError` for a non-finite double (JSON has no NaN or infinity).
    public static func data(_ value: JSONValue) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
