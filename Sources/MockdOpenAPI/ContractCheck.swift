import Foundation
public import MockdCore
public import MockdFormat

/// `mockd check --openapi`: every stored answer and recorded request of a mock set (or a scenario's overrides)
/// against an OpenAPI document, as findings `file: location: message`.
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

    /// Checks the overrides of a scenario that answer with their own status or body (`match.method` and `match.path`
    /// naming a documented operation; templates as written in the document count as that operation).
    public static func check(_ scenario: ScenarioFile, display: String, against contract: OpenAPIContract) -> [Finding]
    {
        var findings: [Finding] = []
        for (index, override) in (scenario.overrides ?? []).enumerated() {
            guard let method = override.match.method, let path = override.match.path else { continue }
            let steps = override.responses ?? [override.step]
            guard steps.contains(where: { $0.status != nil || $0.body != nil }) else { continue }
            let operation =
                contract.document.operations.first { $0.method == method.uppercased() && $0.servedPath == path }
                ?? contract.operation(method: method, path: path)?.operation
            guard let operation else {
                findings.append(
                    Finding(
                        file: display,
                        location: "overrides[\(index)]",
                        violation: ContractViolation(
                            part: "operation",
                            message: "\(method) \(path) is not in the document"
                        ),
                        context: ""
                    )
                )
                continue
            }
            for (step, entry) in steps.enumerated() {
                guard let status = entry.status ?? (entry.body != nil ? 200 : nil) else { continue }
                var body = Data()
                switch entry.body {
                case .string(let text)?: body = Data(text.utf8)
                case let value?: body = (try? JSONEncoder().encode(value)) ?? Data()
                case nil: break
                }
                let contentType =
                    entry.headers?.first { $0.key.lowercased() == "content-type" }?.value
                    ?? (entry.body.map {
                        if case .string = $0 { return "text/plain" } else { return "application/json" }
                    })
                for violation in contract.check(
                    answerTo: operation,
                    status: status,
                    contentType: contentType ?? nil,
                    body: body
                ) {
                    let location =
                        override.responses == nil ? "overrides[\(index)]" : "overrides[\(index)].responses[\(step)]"
                    findings.append(
                        Finding(
                            file: display,
                            location: location,
                            violation: violation,
                            context: "\(operation.name), \(status)"
                        )
                    )
                }
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
