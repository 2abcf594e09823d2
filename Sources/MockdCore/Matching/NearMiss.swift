import Foundation
import MockdControl
import MockdPlatform

// `NearMiss` (a stub that almost matched, and how it differed) is the control API's type, in MockdControl: the 404
// body of a miss, the journal and `GET /__mockd/unmatched` send it as it is.
extension NearMiss {
    /// A short, readable description of a body for near-miss output.
    static func summary(of body: Data) -> String {
        if body.isEmpty { return "(empty body)" }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return body.count > 200 ? "\(text)… (\(body.count) bytes)" : text
    }
}

extension NearMiss.Difference {
    /// The line a miss reason gives for an undecided part (`undecided`), naming `id`, the stub or override.
    func undecidedReason(of id: String) -> String {
        "'\(id)': its \(part) condition (\(expected ?? "")) ran out of its matching budget on this request (at most "
            + "\(BoundedRegex.stepLimit * 10_000) backtracking steps per match, "
            + "\(Int(RegexBudget.requestMs)) ms of CPU time per request): mockd cannot tell whether it "
            + "matches, so nothing answers; simplify the pattern (no nested or adjacent overlapping repetitions "
            + "such as (a+)+ or \\w*\\w*)"
    }
}
