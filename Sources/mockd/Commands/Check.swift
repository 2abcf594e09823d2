import Foundation
import MockdCore
import MockdFormat
import MockdOpenAPI

/// `mockd check --openapi SPEC mocks/NAME…`: stored answers and recorded requests against the API's contract.
struct Check: MockdCommand, Equatable {
    var spec: String
    var targets: [String]
    var basePath: String?
    var root: String?

    static let name = "check"
    static let abstract: String? = "Check mock sets and scenarios against an OpenAPI document"
    static let synopsis = ["mockd check --openapi <spec> mocks/<name>|configs/<name>.json..."]
    static let help = """
        OVERVIEW: Check mock sets and scenarios against an OpenAPI 3.0 or 3.1 document (JSON or YAML): every
        stored answer against the response schema of its operation, status and media type; every recorded
        request against the operation's path and query parameters (and headers the set records) and its
        request body. For a scenario, every answer it can give: the sets it serves (included scenarios'
        too), its overrides' own answers, and what each override that edits (bodyPatch, status) makes of
        every stub it matches. Undocumented operations, statuses and media types are reported.
        Placeholders ({{email}}) are accepted wherever they stand.

        One line per finding, `file: location: message`; exit 1 when there is any, 0 when everything honours
        the document, 2 when the document or a set cannot be read — fit for a CI step.

        USAGE: mockd check --openapi <spec> mocks/<name>|<name>|configs/<name>.json... [--base-path <path>] [--root <dir>]

        OPTIONS:
          --openapi <spec>        The OpenAPI document (.yaml, .yml or .json).
          --base-path <path>      Prefix of the document's paths instead of the first server's path; / for none.
          --root <dir>            Folder holding mocks/ and configs/. (default: $MOCKD_ROOT, else the current directory)
          -h, --help              Show help information.
        """

    static func parse(_ arguments: [String], environment: [String: String]) throws -> Check {
        var spec: String?
        var command = Check(spec: "", targets: [])
        var reader = ArgumentReader(arguments)
        while let argument = try reader.next() {
            switch argument {
            case "--openapi": spec = try reader.value(for: argument)
            case "--base-path": command.basePath = try reader.value(for: argument)
            case "--root": command.root = try reader.value(for: argument)
            default:
                if argument.hasPrefix("-") { throw UsageError.unknown(argument) }
                command.targets.append(argument)
            }
        }
        guard let spec else { throw UsageError("check needs --openapi <spec>") }
        guard !command.targets.isEmpty else {
            throw UsageError("check needs a mock set or scenario: mockd check --openapi <spec> mocks/<name>")
        }
        command.spec = spec
        return command
    }

    func run() -> ExitCode {
        let root = MockdRoot.resolve(option: self.root)
        do {
            let document = try OpenAPIDocument.load(URL(fileURLWithPath: spec), display: spec, basePath: basePath)
            let contract = OpenAPIContract(document: document)
            var findings: [ContractCheck.Finding] = []
            var checked: [String] = []
            for target in targets {
                if target.hasSuffix(".json") {
                    let url =
                        FileManager.default.fileExists(atPath: target)
                        ? URL(fileURLWithPath: target) : root.url.appendingPathComponent(target)
                    // The scenario as served: its includes, their sets and overrides, bodies read.
                    let scenario = try Scenario.load(named: url.path, root: root, defersBodies: false)
                    findings += ContractCheck.check(scenario, against: contract)
                    checked.append(target)
                    for set in scenario.sets {
                        let folder = root.setURL(set)
                        let display = root.display(folder)
                        findings += ContractCheck.check(
                            try MockSetSource.read(folder, display: display),
                            display: display,
                            against: contract
                        )
                        checked.append(display)
                    }
                } else {
                    let folder = Diff.locate(target, root: root)
                    let display = target.hasSuffix("/") ? String(target.dropLast()) : target
                    guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.json").path)
                    else {
                        throw OpenAPIError(file: display, location: "", message: "not a mock set (no index.json)")
                    }
                    findings += ContractCheck.check(
                        try MockSetSource.read(folder, display: display),
                        display: display,
                        against: contract
                    )
                    checked.append(display)
                }
            }
            for finding in findings { Output.standard(finding.description) }
            let summary =
                "mockd check: \(checked.joined(separator: ", ")) against \(spec) (\(document.operations.count) operations)"
            if findings.isEmpty {
                Output.error("\(summary): everything honours the document")
                return .success
            }
            Output.error("\(summary): \(findings.count) finding\(findings.count == 1 ? "" : "s")")
            return .failure
        } catch {
            Output.error("mockd: \(error)")
            return .comparisonFailed
        }
    }
}
