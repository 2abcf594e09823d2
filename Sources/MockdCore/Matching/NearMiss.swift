import Foundation
import MockdPlatform

/// A stub that almost matched an unmatched request, and how it differed.
///
/// Follows WireMock's idea of matching as a distance: each key part contributes a share in 0…1, and
/// the stubs with the smallest total are reported.
public struct NearMiss: Sendable, Equatable {
    /// A part of the request key that did not match.
    public struct Difference: Sendable, Equatable {
        /// `method`, `path`, `url`, `query`, `header`, `body` or `state` (an override waiting for another state).
        public let part: String
        /// What the stub expects (for `header`, `Name: value`; for `body`, a description).
        public let expected: String
        /// What the request had.
        public let actual: String
        /// A regular expression ran out of its matching budget (`BoundedRegex`) on this part: whether it matches is
        /// unknown, so the request is answered as a miss that says so.
        public var undecided = false

        /// The line a miss reason gives for an undecided part, naming `id`, the stub or override.
        func undecidedReason(of id: String) -> String {
            "'\(id)': its \(part) condition (\(expected)) ran out of its matching budget on this request (at most "
                + "\(BoundedRegex.stepLimit * 10_000) backtracking steps per match, "
                + "\(Int(RegexBudget.requestMilliseconds)) ms of CPU time per request): mockd cannot tell whether it "
                + "matches, so nothing answers; simplify the pattern (no nested or adjacent overlapping repetitions "
                + "such as (a+)+ or \\w*\\w*)"
        }
    }

    /// The stub's or override's id.
    public let stubID: String
    /// The stub's mock set, or `override` for a scenario override.
    public let setName: String
    /// 0 means identical; larger is further away.
    public let distance: Double
    public let differences: [Difference]
    /// An override's priority (overrides are tried first, highest priority first, ties to the later one).
    public var priority: Int?

    /// A short, readable description of a body for near-miss output.
    static func summary(of body: Data) -> String {
        if body.isEmpty { return "(empty body)" }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return body.count > 200 ? "\(text)… (\(body.count) bytes)" : text
    }
}
