/// A scenario file, `configs/<name>.json` (format version 1, see docs/FORMAT.md).
public struct ScenarioFile: Codable, Sendable, Equatable {
    public static let currentVersion = 1

    public var version: Int
    public var description: String?
    /// Mock set names, base first; later sets win.
    public var sets: [String]

    public init(version: Int = ScenarioFile.currentVersion, description: String? = nil, sets: [String]) {
        self.version = version
        self.description = description
        self.sets = sets
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(Int.self, forKey: .version) ?? 1
        if version > ScenarioFile.currentVersion {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container,
                debugDescription: "version \(version) is newer than this mockd supports (up to \(ScenarioFile.currentVersion))"
            )
        }
        description = try container.decodeIfPresent(String.self, forKey: .description)
        sets = try container.decode([String].self, forKey: .sets)
    }
}
