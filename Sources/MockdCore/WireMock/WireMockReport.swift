/// What `mockd import-wiremock` did: counts, and every part of a mapping it could not map exactly.
public struct WireMockImportReport: Sendable, Equatable {
    /// A mapping, or a part of one, that mockd does not reproduce exactly, and what the import did instead.
    public struct Item: Sendable, Equatable, CustomStringConvertible {
        public let file: String
        /// JSON path in the file (`mappings[3].response.proxyBaseUrl`).
        public let jsonPath: String
        /// Why, and what happened: `…; mapping skipped`, `…; ignored`, `…; mapped to …`.
        public let reason: String

        public init(file: String, jsonPath: String, reason: String) {
            self.file = file
            self.jsonPath = jsonPath
            self.reason = reason
        }

        /// `file: JSON path: reason`
        public var description: String { jsonPath.isEmpty ? "\(file): \(reason)" : "\(file): \(jsonPath): \(reason)" }
    }

    public var filesRead = 0
    public var mappingsRead = 0
    /// Stubs written to the mock set index (exact method and URL, nothing else to match).
    public var stubsWritten = 0
    /// Overrides written to the scenario (patterns, state, priority, faults, delays).
    public var overridesWritten = 0
    /// Mappings not written at all.
    public var mappingsSkipped = 0
    /// In file order, then mapping order.
    public var unmapped: [Item] = []
    /// What hygiene replaced in responses (entries are mapping load-order numbers).
    public var redactions = RedactionLog()
    /// Unstable response headers left out, by lower-case name.
    public var unstableHeadersDropped: [String: Int] = [:]

    public init() {}

    /// The report as printed at the end of `mockd import-wiremock`; `written: false` when the import wrote
    /// nothing (every mapping skipped).
    /// - Parameter root: The `--root` given, repeated in the "serve with" hint; `nil` for the default.
    public func rendered(source: String, set: String, written: Bool = true, root: String? = nil) -> String {
        var lines = [
            written
                ? "imported \(source) into mocks/\(set)/ and configs/\(set).json (serve with: mockd --config \(set)\(root.map { " --root \($0)" } ?? ""))"
                : "read \(source); nothing written"
        ]
        lines.append("  files read:        \(filesRead)")
        lines.append("  mappings read:     \(mappingsRead)")
        lines.append("  stubs written:     \(stubsWritten) (mocks/\(set)/index.json: exact method and URL)")
        lines.append(
            "  overrides written: \(overridesWritten) (configs/\(set).json: patterns, states, priorities, delays, faults)"
        )
        lines.append("  mappings skipped:  \(mappingsSkipped)")
        lines.append("  unmapped:          \(unmapped.count)")
        lines += unmapped.map { "    \($0)" }
        if !redactions.isEmpty {
            lines.append(
                "  redacted:          \(redactions.total) value\(redactions.total == 1 ? "" : "s") in responses (placeholders render to fake values)"
            )
            for item in redactions.items { lines.append("    \(item.description) ×\(item.count)") }
        }
        if !unstableHeadersDropped.isEmpty {
            lines.append(
                "  unstable headers not stored: "
                    + unstableHeadersDropped.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(
                        separator: ", "
                    )
            )
        }
        return lines.joined(separator: "\n")
    }
}
