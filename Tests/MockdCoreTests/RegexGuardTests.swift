import Foundation
import MockdFormat
import MockdTestSupport
import Testing

@testable import MockdCore

/// Patterns that can backtrack for exponential time are refused where they are loaded (issue 24: `/r/(a+)+$`
/// took 1.1–1.5 s per request on a shared worker and stalled other sessions for seconds).
struct RegexGuardTests {
    @Test(arguments: [
        "/r/(a+)+$", "(a*)*", "(a*b?)*", "((ab)+c)*", "(\\d+)+x", "(a|ab)+", "(\\d|x)*", "(a|a)*$", "(?:a+){2,}",
        "(a?){5}", "([a-z]+)*@", ".*.*.*x", "/a/.+/b/.*/c/.{2,}",
    ])
    func refusesPatternsThatBacktrackExponentially(pattern: String) {
        #expect(RegexGuard.problem(in: pattern) != nil)
    }

    @Test(arguments: [
        "/v1/.*", "^/api/v[0-9]+/items/[^/]+$", "Bearer .*", "(GET|POST)+", "(ab)+", "(a+)?", "(a+){1}", "[(a+)+]",
        "\\(a+\\)+", "\\Q(a+)+\\E", "(?i)abc+", "(?:/[a-z]+)/x", "a{2,5}b*", "(foo|bar)/(baz)*", ".*a.*",
        "/a/.{2}/b/.?/c/.*", "/a/[^/]+/b/[^/]+/c/[^/]+",
    ])
    func acceptsOrdinaryPatterns(pattern: String) {
        #expect(RegexGuard.problem(in: pattern) == nil)
    }

    @Test func runtimeStubWithNestedQuantifierIsRefusedWithTheReason() throws {
        let client = try ControlAPITests.client()
        let added = try client.control(
            "POST",
            "stubs",
            session: "hostile",
            body: #"{"match": {"pathPattern": "/r/(a+)+$"}, "status": 200}"#
        )
        #expect(added.status == 400)
        #expect(added.json["error"] as? String == "invalid_stub")
        #expect(
            added.json["message"] as? String
                == "stub: match.pathPattern: regular expression '/r/(a+)+$' repeats a group that repeats itself (the "
                + "group at offset 3): a nested quantifier can take exponential time on a value that almost matches; "
                + "write it without the inner quantifier or make the group match a fixed length"
        )
        let header = try client.control(
            "POST",
            "stubs",
            session: "hostile",
            body: #"{"match": {"headers": {"X-A": {"matches": "(x|xy)*z"}}}, "status": 200}"#
        )
        #expect(header.status == 400)
        #expect(
            header.json["message"] as? String
                == "stub: match.headers.X-A: regular expression '(x|xy)*z' repeats a group whose alternatives can "
                + "match the same text (the group at offset 0): this can take exponential time on a value that almost "
                + "matches; make the alternatives start differently"
        )
        #expect((try client.control("GET", "stubs", session: "hostile").json["stubs"] as? [Any])?.count == 0)
    }

    @Test func valuesOverTheLengthCapNeverMatch() throws {
        let regex = try FullMatchRegex("/a/.*")
        #expect(regex.matches("/a/" + String(repeating: "b", count: RegexGuard.maxSubjectLength - 3)))
        #expect(!regex.matches("/a/" + String(repeating: "b", count: RegexGuard.maxSubjectLength - 2)))
        // Two wildcards: the cost grows with the square of the length, so the cap is 1 KiB.
        let two = try FullMatchRegex("/a/.*/.*")
        #expect(two.matches("/a/" + String(repeating: "b", count: 1_019) + "/c"))
        #expect(!two.matches("/a/" + String(repeating: "b", count: 1_020) + "/c"))
    }

    @Test func normalizeRuleWithNestedQuantifierIsAProblem() {
        let rules = RequestNormalization(queryValues: [
            .init(name: "ts", pattern: "^(\\d+)+$", placeholder: "timestamp")
        ])
        #expect(
            rules.problems().map(\.message) == [
                "regular expression '^(\\d+)+$' repeats a group that repeats itself (the group at offset 1): a nested "
                    + "quantifier can take exponential time on a value that almost matches; write it without the inner "
                    + "quantifier or make the group match a fixed length"
            ]
        )
    }
}
