import Foundation
import MockdCore
import MockdFormat
import MockdOpenAPI

/// `mockd import-openapi SPEC --set NAME`: an OpenAPI 3.0/3.1 document as the scenario `configs/NAME.json`.
struct ImportOpenAPI: MockdCommand, Equatable {
    var spec: String
    var set: String
    var root: String?
    var force = false
    var seed: UInt64 = 1
    var basePath: String?

    static let name = "import-openapi"
    static let abstract: String? = "Turn an OpenAPI 3.0/3.1 document into a scenario that serves every operation"
    static let synopsis = ["mockd import-openapi <spec.yaml|spec.json> --set <name> [--seed <n>] [--force]"]
    static let help = """
        OVERVIEW: Turn an OpenAPI 3.0 or 3.1 document (JSON or YAML) into the scenario configs/<name>.json (with an
        empty mock set mocks/<name>/ beneath it): one
        override per operation and documented status, matching the method and the path as a {name} template
        under the first server's path (/v1/pets/{petId}). Each answers the media type's example, its first named
        example, or an example generated from the schema ($ref, allOf/oneOf/anyOf, nullable, formats, bounds),
        the same for the same --seed. The lowest 2xx status answers by default; another status answers requests
        with `Prefer: code=<status>`, another named example `Prefer: example=<name>` (Prism's convention).
        Serve it with `mockd --config <name>`.

        USAGE: mockd import-openapi <spec.yaml|spec.json> --set <name> [--root <dir>] [--seed <n>] [--base-path <path>] [--force]

        OPTIONS:
          --set <name>            Name of the scenario to write (letters, digits, '.', '_', '-').
          --root <dir>            Folder holding configs/. (default: $MOCKD_ROOT, else the current directory)
          --seed <n>              Seed of the generated examples. (default: 1)
          --base-path <path>      Prefix of every path instead of the first server's path; / for none.
          --force                 Replace the scenario and mock set if they exist.
          -h, --help              Show help information.
        """

    static func parse(_ arguments: [String], environment: [String: String]) throws -> ImportOpenAPI {
        var spec: String?
        var command = ImportOpenAPI(spec: "", set: "")
        var set: String?
        var reader = ArgumentReader(arguments)
        while let argument = try reader.next() {
            switch argument {
            case "--set": set = try reader.value(for: argument)
            case "--root": command.root = try reader.value(for: argument)
            case "--force": command.force = true
            case "--base-path": command.basePath = try reader.value(for: argument)
            case "--seed":
                let value = try reader.value(for: argument)
                guard let seed = UInt64(value) else {
                    throw UsageError("--seed must be a whole number; got '\(value)'")
                }
                command.seed = seed
            default:
                if argument.hasPrefix("-") { throw UsageError.unknown(argument) }
                guard spec == nil else {
                    throw UsageError("import-openapi takes one document; got '\(spec!)' and '\(argument)'")
                }
                spec = argument
            }
        }
        guard let spec else {
            throw UsageError("import-openapi needs a document: mockd import-openapi <spec> --set <name>")
        }
        guard let set else { throw UsageError("import-openapi needs --set <name> to name the scenario to write") }
        command.spec = spec
        command.set = set
        return command
    }

    func run() -> ExitCode {
        let root = MockdRoot.resolve(option: self.root)
        guard MockdRoot.isValidName(set) else {
            Output.error("mockd: --set '\(set)' is not a valid scenario name (use letters, digits, '.', '_' and '-')")
            return .usage
        }
        do {
            let document = try OpenAPIDocument.load(URL(fileURLWithPath: spec), display: spec, basePath: basePath)
            let result = OpenAPIImporter.build(document, seed: seed)
            let configURL = root.configURL(set)
            let display = root.display(configURL)
            for (url, what) in [(configURL, "scenario"), (root.setURL(set), "mock set")]
            where !force && FileManager.default.fileExists(atPath: url.path) {
                Output.error("mockd: \(root.display(url)): \(what) '\(set)' already exists; pass --force to replace it")
                return .failure
            }
            // The scenario's own mock set, empty: the overrides answer; recordings can be merged into it later.
            var scenario = result.scenario
            scenario.sets = [set]
            try MockSetWriter(root: root).write(
                MockSetBuild(file: MockSetFile(stubs: []), files: [:]),
                set: set,
                replace: force,
                source: spec
            )
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            var data = try encoder.encode(scenario)
            data.append(0x0A)
            try FileManager.default.createDirectory(at: root.configsURL, withIntermediateDirectories: true)
            try data.write(to: configURL, options: .atomic)
            var lines = [
                "imported \(spec) (OpenAPI \(document.version)) into \(display) (serve with: mockd --config \(set)"
                    + "\(self.root.map { " --root \($0)" } ?? ""))",
                "  operations:     \(result.operations)",
                "  overrides:      \(result.overrides) (one per operation and status; others by Prefer: code=…)",
            ]
            lines += result.notes.map { "  note: " + $0 }
            Output.standard(lines.joined(separator: "\n"))
            return .success
        } catch {
            Output.error("mockd: \(error)")
            return .failure
        }
    }
}
