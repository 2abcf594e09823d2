import Foundation
import Testing

@testable import MockdFormat

/// A JSON Pointer token's escapes (RFC 6901 §4), undone in one pass.
struct JSONPointerTokenTests {
    /// RFC 6901 §5's member names, and the cases where the order of the two replacements matters.
    @Test(arguments: [
        ("a~1b", "a/b"), ("m~0n", "m~n"), ("~01", "~1"), ("~10", "/0"), ("~~1", "~/"), ("~", "~"), ("a~", "a~"),
        ("~2", "~2"), ("", ""), ("c%d", "c%d"), ("été~1ü", "été/ü"), ("plain", "plain"), ("~0~1~0~1", "~/~/"),
    ])
    func undoesEscapesAsRFC6901Says(token: String, expected: String) {
        #expect(JSONPointerToken.unescaped(token) == expected)
        #expect(JSONPointerToken.unescaped(Substring(token)) == expected)
    }

    /// The same as replacing `~1` and then `~0` everywhere (what every caller did before), for every token of up to six
    /// characters drawn from `~`, `0`, `1` and `a`.
    @Test func sameAsTheTwoReplacementsForEveryShortToken() {
        let alphabet: [Character] = ["~", "0", "1", "a"]
        var tokens = [""]
        for _ in 0..<6 {
            tokens = tokens.flatMap { token in alphabet.map { token + String($0) } } + [""]
            for token in tokens {
                let replaced = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
                #expect(JSONPointerToken.unescaped(token) == replaced, "\(token)")
            }
        }
    }
}
