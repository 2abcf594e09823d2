import Foundation
import MockdCore

/// `mockd import-wiremock DIR_OR_FILE --set NAME`: turn WireMock stub mappings into a mock set and a scenario,
/// and print a report listing everything that could not be mapped exactly.
struct ImportWireMock: MockdCommand, Equatable {
    /// A mapping file, a WireMock root folder, a `mappings/` folder or any folder of mappings.
    var source: String
    /// `--set`: the mock set and scenario to write.
    var set: String
    var root: String?
    /// `--force`: replace the set and scenario if they exist.
    var force = false
    /// `--global-templating`: every response is a template (WireMock's `--global-response-templating`).
    var globalTemplating = false
    /// `--redact`: secrets and personal data in responses become placeholders (off: served as written).
    var redact = false

    static let name = "import-wiremock"
    static let abstract: String? = "Turn WireMock stub mappings into a mock set and a scenario"
    static let synopsis = [
        "mockd import-wiremock <dir|file.json> --set <name> [--root <dir>] [--force] [--global-templating] [--redact]"
    ]
    static let help = """
        OVERVIEW: Turn WireMock stub mappings into the mock set mocks/<name>/ and the scenario configs/<name>.json.

        Mappings matching an exact method and url only go to the mock set index; every other mapping (url
        patterns, query/header/body matchers, scenario states, priorities, delays, faults) becomes a scenario
        override, with priority = -(WireMock priority) so WireMock's order is kept. bodyFileName resolves in the
        __files/ folder beside mappings/ (never outside it). What mockd cannot reproduce is listed at the end as
        `file: JSON path: reason`. Nothing is written when a file is not JSON, has wrong types or an invalid regex.
        Serve the result with `mockd --config <name>`.

        USAGE: mockd import-wiremock <dir|file.json> --set <name> [--root <dir>] [--force] [--global-templating] [--redact]

        ARGUMENTS:
          <dir|file.json>         A mapping file (one mapping, or {"mappings": [...]}), a WireMock root folder
                                  (mappings/ + __files/), a mappings/ folder, or any folder of *.json mappings.

        OPTIONS:
          --set <name>            Name of the mock set and scenario to write (letters, digits, '.', '_', '-').
          --root <dir>            Folder holding mocks/ and configs/. (default: $MOCKD_ROOT, else the current directory)
          --force                 Replace the mock set and scenario if they exist.
          --global-templating     Render {{…}} in every response, as WireMock started with
                                  --global-response-templating does. (default: only mappings with the
                                  response-template transformer; others send {{…}} as written)
          --redact                Replace secrets and personal data in responses with placeholders, as
                                  import-har does. (default: mappings are fixtures, served as written, as
                                  WireMock serves them; mockd lint reports what looks like a secret)
          -h, --help              Show help information.
        """

    static func parse(_ arguments: [String], environment: [String: String]) throws -> ImportWireMock {
        var source: String?
        var set: String?
        var root: String?
        var force = false
        var globalTemplating = false
        var redact = false
        var reader = ArgumentReader(arguments)
        while let argument = try reader.next() {
            switch argument {
            case "--set": set = try reader.value(for: argument)
            case "--root": root = try reader.value(for: argument)
            case "--force": force = true
            case "--global-templating": globalTemplating = true
            case "--redact": redact = true
            default:
                if argument.hasPrefix("-") { throw UsageError.unknown(argument) }
                guard source == nil else {
                    throw UsageError("import-wiremock takes one folder or file; got '\(source!)' and '\(argument)'")
                }
                source = argument
            }
        }
        guard let source else {
            throw UsageError(
                "import-wiremock needs a WireMock folder or mapping file: mockd import-wiremock <dir|file.json> --set <name>"
            )
        }
        guard let set else {
            throw UsageError("import-wiremock needs --set <name> to name the mock set and scenario to write")
        }
        return ImportWireMock(
            source: source,
            set: set,
            root: root,
            force: force,
            globalTemplating: globalTemplating,
            redact: redact
        )
    }

    func run() -> ExitCode {
        let root = MockdRoot.resolve(option: self.root)
        guard MockdRoot.isValidName(set) else {
            Output.error("mockd: --set '\(set)' is not a valid mock set name (use letters, digits, '.', '_' and '-')")
            return .usage
        }
        for line in MockSetRecovery.recover(root: root).lines { Output.error(line) }
        do {
            let located = try WireMockSource.locate(source)
            let result = try WireMockImporter.build(
                located,
                set: set,
                globalTemplating: globalTemplating,
                redact: redact
            )
            guard result.report.stubsWritten + result.report.overridesWritten > 0 else {
                Output.error(result.report.rendered(source: source, set: set, written: false))
                throw WireMockImportError(
                    .nothingToImport,
                    file: source,
                    message:
                        "none of the \(result.report.mappingsRead) mappings can be served by mockd; nothing was written"
                )
            }
            try WireMockWriter(root: root).write(result, set: set, replace: force)
            Output.standard(result.report.rendered(source: source, set: set, root: self.root))
            return .success
        } catch {
            Output.error("mockd: \(error)")
            return .failure
        }
    }
}
