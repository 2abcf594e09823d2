import Foundation
public import MockdCore
import MockdFormat

/// `mockd check --openapi`: every stored answer and recorded request of a mock set, and every answer a scenario's
/// overrides can give, against an OpenAPI document, as findings `file: location: message`.
public enum ContractCheck {
    /// One finding: where in which file, and what.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        public var file: String
        /// `stubs[2].responses[0]`, `stubs[2].request`, `overrides[1]`.
        public var location: String
        public var violation: ContractViolation
        /// The operation and status it concerns (`showPetById, 200`), for the reader.
        public var context: String

        public var description: String {
            "\(file): \(location): \(violation)" + (context.isEmpty ? "" : " (\(context))")
        }
    }

    /// Checks the stubs of `build` (read from `display`, the set folder as shown).
    ///
    /// Recorded requests are checked for their operation, path and query parameters and body; header parameters
    /// only when the stub recorded the header (a mock set keeps only the headers it matches on). Every response
    /// step is checked for its status, media type and body; failed-attempt and unrecorded steps are skipped.
    public static func check(_ build: MockSetBuild, display: String, against contract: OpenAPIContract) -> [Finding] {
        let file = display.hasSuffix("/") ? display + "index.json" : display + "/index.json"
        var findings: [Finding] = []
        for (index, stub) in build.file.stubs.enumerated() {
            let request = stub.request
            guard let (operation, _) = contract.operation(method: request.method, path: request.path) else {
                findings.append(
                    Finding(
                        file: file,
                        location: "stubs[\(index)]",
                        violation: ContractViolation(
                            part: "operation",
                            message: "\(request.method) \(request.path) is not in the document"
                        ),
                        context: ""
                    )
                )
                continue
            }
            let headers = (request.headers ?? []).compactMap(Self.header)
            let body = requestBody(request.body, files: build.files)
            let recordedHeaders = Set(headers.map { $0.name.lowercased() })
            let requestViolations = contract.check(
                method: request.method,
                path: request.path,
                query: request.query ?? "",
                headers: headers,
                body: body
            ).filter { violation in
                // A header the set does not record is not missing from the request.
                !(violation.part.hasPrefix("header parameter ") && violation.message == "required but missing"
                    && !recordedHeaders.contains(
                        String(violation.part.dropFirst("header parameter ".count)).lowercased()
                    ))
                    && !(violation.part == "request body" && body.isEmpty && request.body == nil)
            }
            for violation in requestViolations {
                findings.append(
                    Finding(
                        file: file,
                        location: "stubs[\(index)].request",
                        violation: violation,
                        context: operation.name
                    )
                )
            }
            for (step, response) in stub.responses.enumerated() where response.miss == nil && response.fault == nil {
                let status = response.status ?? 200
                if response.websocket != nil || response.events != nil { continue }
                let contentType = (response.headers ?? []).compactMap(Self.header).first {
                    $0.name.lowercased() == "content-type"
                }?.value
                let bytes = responseBody(response, files: build.files)
                for violation in contract.check(
                    answerTo: operation,
                    status: status,
                    contentType: contentType ?? (response.json != nil ? "application/json" : nil),
                    body: bytes
                ) {
                    findings.append(
                        Finding(
                            file: file,
                            location: "stubs[\(index)].responses[\(step)]",
                            violation: violation,
                            context: "\(operation.name), \(status)"
                        )
                    )
                }
            }
        }
        return findings
    }

    /// Checks every answer a scenario's overrides can give (`Scenario.overrideAnswers()`): the steps that answer on
    /// their own (their `match.method` and `match.path` naming a documented operation, a template as written in the
    /// document counting as that operation), and the steps that edit (a `bodyPatch`, a status) as applied to each stub
    /// of the scenario's sets, included ones too, that they can match. The sets' own answers are checked with
    /// `check(_:display:against:)`.
    public static func check(_ scenario: Scenario, against contract: OpenAPIContract) -> [Finding] {
        var findings: [Finding] = []
        var undocumented = Set<String>()
        for answer in scenario.overrideAnswers() {
            let operation =
                contract.document.operations.first {
                    $0.method == answer.method.uppercased() && $0.servedPath == answer.path
                }
                ?? contract.operation(method: answer.method, path: answer.path)?.operation
            guard let operation else {
                // Once per override step, not once per stub it edits.
                let step = answer.location.components(separatedBy: " over ")[0]
                if undocumented.insert("\(answer.file) \(step) \(answer.method) \(answer.path)").inserted {
                    findings.append(
                        Finding(
                            file: answer.file,
                            location: answer.location,
                            violation: ContractViolation(
                                part: "operation",
                                message: "\(answer.method) \(answer.path) is not in the document"
                            ),
                            context: ""
                        )
                    )
                }
                continue
            }
            for violation in contract.check(
                answerTo: operation,
                status: answer.status,
                contentType: answer.headers["content-type"],
                body: answer.body
            ) {
                findings.append(
                    Finding(
                        file: answer.file,
                        location: answer.location,
                        violation: violation,
                        context: "\(operation.name), \(answer.status)"
                    )
                )
            }
        }
        return findings
    }

    private static func header(_ line: String) -> (name: String, value: String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    private static func requestBody(_ body: MockSetFile.BodyEntry?, files: [String: Data]) -> Data {
        guard let body else { return Data() }
        if let json = body.json { return (try? JSONEncoder().encode(json)) ?? Data() }
        if let text = body.text { return Data(text.utf8) }
        if let file = body.file { return files[file] ?? Data() }
        return Data()
    }

    private static func responseBody(_ response: MockSetFile.ResponseEntry, files: [String: Data]) -> Data {
        if let json = response.json { return (try? JSONEncoder().encode(json)) ?? Data() }
        if let text = response.body { return Data(text.utf8) }
        if let file = response.bodyFile { return files[file] ?? Data() }
        return Data()
    }
}
