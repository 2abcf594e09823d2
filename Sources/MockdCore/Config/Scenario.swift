import Foundation

/// A loaded scenario: its mock sets layered into one `StubIndex`.
public struct Scenario: Sendable {
    public let name: String
    public let description: String?
    public let sets: [String]
    public let index: StubIndex

    public init(name: String, description: String? = nil, sets: [String], index: StubIndex) {
        self.name = name
        self.description = description
        self.sets = sets
        self.index = index
    }

    /// Loads `configs/<name>.json` (or a `.json` path) and every mock set it names.
    ///
    /// - Throws: `ConfigError` (`file: JSON path: message`) for a missing or malformed scenario, an empty
    ///   `sets` list, or any problem in a named mock set.
    public static func load(named name: String, root: MockdRoot) throws -> Scenario {
        let url = root.configURL(name)
        let display = root.display(url)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) {
                throw ConfigError(
                    .fileNotFound, file: display,
                    message: "scenario '\(name)' not found (looked for \(url.path))"
                )
            }
            throw ConfigError(.unreadable, file: display, message: "cannot read: \(error.localizedDescription)")
        }
        let file: ScenarioFile
        do {
            file = try JSONDecoder().decode(ScenarioFile.self, from: data)
        } catch let error as DecodingError {
            throw ConfigError.decoding(error, file: display)
        }
        guard !file.sets.isEmpty else {
            throw ConfigError(.invalidValue, file: display, jsonPath: "sets", message: "name at least one mock set")
        }
        let loader = MockSetLoader(root: root)
        var layers: [[Stub]] = []
        for (position, setName) in file.sets.enumerated() {
            guard MockdRoot.isValidName(setName) else {
                throw ConfigError(
                    .invalidValue, file: display, jsonPath: "sets[\(position)]",
                    message: "'\(setName)' is not a valid mock set name"
                )
            }
            layers.append(try loader.load(set: setName))
        }
        let scenarioName = url.deletingPathExtension().lastPathComponent
        return Scenario(name: scenarioName, description: file.description, sets: file.sets, index: StubIndex(layers: layers))
    }

    /// A scenario serving one mock set, for `mockd --set NAME`.
    public static func single(set name: String, root: MockdRoot) throws -> Scenario {
        let stubs = try MockSetLoader(root: root).load(set: name)
        return Scenario(name: name, sets: [name], index: StubIndex(layers: [stubs]))
    }
}
