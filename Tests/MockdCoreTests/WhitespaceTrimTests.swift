import Foundation
import Testing

@testable import MockdCore

/// `trimmingWhitespace` gives what Foundation's `trimmingCharacters(in: .whitespaces)` gives, on ASCII and
/// Unicode ends alike.
struct WhitespaceTrimTests {
    static let samples = [
        "", " ", "\t", "  \t ", "a", " a", "a ", " a b ", "\tapplication/json\t", "application/json",
        "text/html; charset=utf-8 ", "\u{00A0}x\u{00A0}", " \u{2003}x", "x\u{3000} ", "é", " é ", "\u{00A0}",
        " \u{00A0} ", "a\u{0085}", "\n x \n", "\u{FEFF}x", " ü\t",
    ]

    @Test(arguments: samples) func matchesFoundation(_ text: String) {
        #expect(text.trimmingWhitespace == text.trimmingCharacters(in: .whitespaces))
        let substring = ("[" + text + "]").dropFirst().dropLast()
        #expect(substring.trimmingWhitespace == substring.trimmingCharacters(in: .whitespaces))
    }
}
