import Foundation
import MockdFormat

/// Steps that hold no whole answer for every request (`miss`, `conditionalOnly`, `rangeOnly`), as the loader
/// builds them: which requests each still answers, and the step of the same stub whose whole representation the
/// others get (see `MockResponse.Unjustified`, `MockEngine.gatedStep`).
extension MockSetLoader {
    /// Sets `unjustified` on each gated step of `responses` (built from `steps`, in order).
    /// - Throws: `ConfigError` for a `validators` line that is not an `If-None-Match` or `If-Modified-Since` field,
    ///   or a `cachedCopy` on a step that is not `conditionalOnly`.
    static func gate(
        _ responses: inout [MockResponse],
        _ steps: [MockSetFile.ResponseEntry],
        path: String,
        indexName: String
    ) throws {
        for (position, step) in steps.enumerated() {
            if step.cachedCopy != nil, step.conditionalOnly != true {
                throw ConfigError(
                    .invalidValue,
                    file: indexName,
                    jsonPath: "\(path).responses[\(position)].cachedCopy",
                    message: "cachedCopy belongs to a recorded 304 (conditionalOnly: true): the copy it confirmed"
                )
            }
            let answers: MockResponse.Unjustified.Answers
            if step.conditionalOnly == true {
                var ifNoneMatch: String?
                var ifModifiedSince: String?
                for (line, text) in (step.validators ?? []).enumerated() {
                    let field = HeaderLine.parse(text)
                    switch field?.name.asciiLowercased {
                    case "if-none-match": ifNoneMatch = field?.value
                    case "if-modified-since": ifModifiedSince = field?.value
                    default:
                        throw ConfigError(
                            .invalidValue,
                            file: indexName,
                            jsonPath: "\(path).responses[\(position)].validators[\(line)]",
                            message: "expected \"If-None-Match: …\" or \"If-Modified-Since: …\", got '\(text)'"
                        )
                    }
                }
                answers = .notModified(ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince)
            } else if step.rangeOnly == true {
                answers = .partialContent
            } else if step.miss != nil {
                answers = .nothing
            } else {
                continue
            }
            let representation = answers == .nothing ? nil : wholeRepresentation(for: position, in: responses, steps)
            let reason =
                step.miss
                ?? (answers == .partialContent
                    ? "recorded only as 206 Partial Content: a GET whose Range lies inside the recorded bytes gets them"
                    : "recorded only as 304 Not Modified: a conditional request with the recorded validator gets the 304")
            responses[position].unjustified = .init(
                answers: answers,
                reason: reason,
                representation: representation,
                cachedCopy: representation == nil && step.conditionalOnly == true ? step.cachedCopy : nil
            )
        }
    }

    /// The step a 304 or a partial 206 at `position` stands for: the nearest earlier step that is a whole
    /// representation (a 2xx but 206, no fault, not gated), else the nearest later one; `nil` when none is.
    static func wholeRepresentation(
        for position: Int,
        in responses: [MockResponse],
        _ steps: [MockSetFile.ResponseEntry]
    ) -> Int? {
        func isWhole(_ index: Int) -> Bool {
            let step = steps[index]
            let status = responses[index].status
            return (200..<300).contains(status) && status != 206 && step.miss == nil && step.conditionalOnly != true
                && step.rangeOnly != true && step.fault == nil && step.websocket == nil
        }
        return (0..<position).reversed().first(where: isWhole) ?? ((position + 1)..<steps.count).first(where: isWhole)
    }
}
