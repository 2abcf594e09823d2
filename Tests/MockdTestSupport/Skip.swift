/// How a test says it did not run, in one greppable form that `scripts/test` counts and names in its final table.
///
/// A missing **dependency** the run is meant to have (the shared corpus, the JSON Schema Test Suite, the OpenAPI
/// examples, the Python MCP SDK) fails `scripts/test` unless `MOCKD_EXPECTED_SKIPS` lists it (`corpus,mcp`): a green
/// run without them would check far less than it says. An **environment** skip (not root, a port policy, another
/// platform) is counted and named, never a failure: no install fixes it.
public enum Skip {
    /// What a test needs that scripts/install-deps or a checkout of ../shared provides; the names MOCKD_EXPECTED_SKIPS
    /// takes.
    public enum Dependency: String, Sendable {
        /// `../shared/corpus` (or `$MOCKD_CORPUS`): real HAR and WireMock files.
        case corpus
        /// `../shared/jsonschema-test-suite`.
        case jsonschema
        /// `../shared/openapi`.
        case openapi
        /// The Python MCP SDK in `.build/test-venv` (scripts/install-deps).
        case mcp
        /// schemathesis (PyPI) in `.build/test-venv` (scripts/install-deps): it fuzzes the control API, and carries the
        /// OpenAPI 3.1 schema the control API's document is checked against.
        case schemathesis
    }

    /// Prints `SKIPPED [dependency] test: reason`.
    public static func missing(_ dependency: Dependency, test: String, _ reason: String) {
        print("SKIPPED [\(dependency.rawValue)] \(test): \(reason)")
    }

    /// Prints `SKIPPED (environment) test: reason`.
    public static func environment(test: String, _ reason: String) {
        print("SKIPPED (environment) \(test): \(reason)")
    }
}
