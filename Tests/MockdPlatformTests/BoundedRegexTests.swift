import Dispatch
import MockdPlatform
import Testing

/// `BoundedRegex`: ICU's results, within a budget. One match stops after a million backtracking steps (counted by
/// ICU, so the same on every machine); one request's matches stop together after `RegexBudget.requestMs`
/// of CPU time.
struct BoundedRegexTests {
    static let almost = String(repeating: "a", count: 4000)

    @Test func ordinaryPatternsGiveICUsAnswers() throws {
        RegexBudget.startRequest()
        let bearer = try BoundedRegex("Bearer [A-Za-z0-9._-]+")
        #expect(bearer.wholeMatch("Bearer " + String(repeating: "t", count: 4000)) == .match)
        #expect(bearer.wholeMatch("xBearer abc") == .noMatch)
        #expect(bearer.firstMatch(in: "xBearer abc") == .match)
        #expect(try BoundedRegex("(?i)é+").wholeMatch("ÉÉé") == .match)
        #expect(try BoundedRegex("").wholeMatch("") == .match)
        #expect(try BoundedRegex("a|").firstMatch(in: "") == .match)
        // Two wildcards failing on 1 KiB (the slowest ordinary pattern measured) stay within one match's budget.
        #expect(try BoundedRegex(".*a.*b").wholeMatch(String(repeating: "a", count: 1024)) == .noMatch)
        #expect(throws: BoundedRegex.InvalidPattern.self) { try BoundedRegex("a)(b") }
        #expect(throws: BoundedRegex.InvalidPattern.self) { try BoundedRegex("[") }
    }

    @Test(arguments: [
        "[^/]*[^/]*[^/]*[^/]*x", #"\w*\w*\w*\w*\w*\w*x"#, "a*a*a*a*a*a*a*x", "a{0,1000}a{0,1000}a{0,1000}x",
    ])
    func backtrackingPatternsRunOutOfBudget(_ pattern: String) throws {
        let regex = try BoundedRegex(pattern)
        // Each in a request of its own, so that the per-match step limit is what stops it.
        RegexBudget.startRequest()
        #expect(regex.wholeMatch(Self.almost) == .overBudget)
        RegexBudget.startRequest()
        #expect(regex.firstMatch(in: Self.almost) == .overBudget)
        // Still usable afterwards, and right when the value is short.
        RegexBudget.startRequest()
        #expect(regex.wholeMatch("ax") == .match)
    }

    @Test func aRequestsMatchesShareOneBudget() throws {
        let hostile = try BoundedRegex("[^/]*[^/]*[^/]*[^/]*x")
        let plain = try BoundedRegex("a+")
        RegexBudget.startRequest()
        var overBudget = 0
        // Each costs a million steps; the request's CPU time runs out after a few, and then nothing more runs.
        for _ in 0..<200 where hostile.wholeMatch(Self.almost) == .overBudget { overBudget += 1 }
        #expect(overBudget == 200)
        #expect(RegexBudget.isExhausted)
        #expect(plain.wholeMatch("aaa") == .overBudget)
        // The next request starts afresh.
        RegexBudget.startRequest()
        #expect(!RegexBudget.isExhausted)
        #expect(plain.wholeMatch("aaa") == .match)
    }

    @Test func threadsShareOneCompiledPattern() throws {
        let regex = try BoundedRegex("[a-z]+-[0-9]+")
        let results = Mutex<[BoundedRegex.Outcome]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            RegexBudget.startRequest()
            let outcome = regex.wholeMatch(index % 2 == 0 ? "abc-\(index)" : "ABC-\(index)")
            results.withLock { $0.append(outcome) }
        }
        let outcomes = results.withLock { $0 }
        #expect(outcomes.filter { $0 == .match }.count == 32)
        #expect(outcomes.filter { $0 == .noMatch }.count == 32)
    }
}
