public import Foundation
import MockdFormat

/// An answer a scenario's overrides can give, worked out without a request: what `mockd check --openapi` checks
/// besides the mock sets' own answers.
public struct OverrideAnswer: Sendable {
    /// The scenario file the override is written in (an included file for an included override).
    public let file: String
    /// `overrides[N]` (one step) or `overrides[N].responses[I]`, with ` over stub ID` when it edits a stub's answer.
    public let location: String
    public let method: String
    /// The stub's path when the override edits a stub's answer; the override's `match.path` as written (a `{name}`
    /// template) when it answers on its own.
    public let path: String
    public let status: Int
    public let headers: HTTPHeaders
    public let body: Data
}

extension Scenario {
    /// Every answer the overrides can give: each step that is a whole response (with its status and body; where the
    /// override names a method and a path), and each step that edits (a `bodyPatch`, a status, headers) applied to
    /// every response of every stub of the scenario's sets it can match (method, path and query; a sequence's every
    /// step). WebSocket and event-stream steps, faults and answers the recording cannot justify are left out.
    ///
    /// Load the scenario with `defersBodies: false` so that stub bodies are read.
    /// - Complexity: O(overrides × stubs).
    public func overrideAnswers() -> [OverrideAnswer] {
        var answers: [OverrideAnswer] = []
        for override in overrides.sorted(by: { $0.position < $1.position }) {
            let source =
                override.position < overrideSources.count
                ? overrideSources[override.position] : (file: name, index: override.position)
            for (number, step) in override.steps.enumerated() {
                let recipe = step.withDefaults(defaults)
                guard recipe.webSocket == nil, recipe.eventStream == nil, recipe.fault == nil else { continue }
                let location =
                    override.steps.count == 1
                    ? "overrides[\(source.index)]" : "overrides[\(source.index)].responses[\(number)]"
                if recipe.replacesResponse {
                    guard let method = override.pattern.method, let path = override.pattern.pathText,
                        let response = try? recipe.apply(to: nil)
                    else { continue }
                    answers.append(answer(response, source.file, location, method, path))
                    continue
                }
                var edited = false
                for stub in index.stubs {
                    let target = stub.key.query.isEmpty ? stub.key.path : "\(stub.key.path)?\(stub.key.query)"
                    guard override.pattern.couldMatch(method: stub.key.method, target: target) else { continue }
                    for step in 0..<stub.responseCount {
                        var base = stub.response(step)
                        guard base.unjustified == nil, base.fault == nil, base.webSocket == nil, base.eventStream == nil
                        else { continue }
                        if let file = base.fileBody, recipe.bodyPatch == nil, let bytes = try? file.bytes() {
                            base.replaceBody(bytes)
                        }
                        guard let response = try? recipe.apply(to: base) else { continue }
                        let over = stub.responseCount == 1 ? "stub \(stub.id)" : "stub \(stub.id) step \(step + 1)"
                        answers.append(
                            answer(response, source.file, "\(location) over \(over)", stub.key.method, stub.key.path)
                        )
                        edited = true
                    }
                }
                // Nothing to edit: the step answers alone (a status with an empty body) where it can.
                if !edited, recipe.standsAlone, let method = override.pattern.method,
                    let path = override.pattern.pathText, let response = try? recipe.apply(to: nil)
                {
                    answers.append(answer(response, source.file, location, method, path))
                }
            }
        }
        return answers
    }

    private func answer(
        _ response: MockResponse,
        _ file: String,
        _ location: String,
        _ method: String,
        _ path: String
    ) -> OverrideAnswer {
        OverrideAnswer(
            file: file,
            location: location,
            method: method,
            path: path,
            status: response.status,
            headers: response.headers,
            body: response.body
        )
    }
}
