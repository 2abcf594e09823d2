import MockdControl
import Testing

/// A control error's message quotes what the client sent: it stays short printable text whatever that was.
struct ControlErrorMessageTests {
    @Test func controlCharactersAreEscapedAndLineBreaksBetweenProblemsKept() {
        let error = ControlError(
            .invalidGroup,
            "group name 'a\u{0}b\r\nX-Injected: 1\t\u{1B}[31m' is refused\nsecond problem"
        )
        #expect(error.message == #"group name 'a\0b\r\u{A}X-Injected: 1\t\u{1B}[31m' is refused"# + "\nsecond problem")
        #expect(error.code == .invalidGroup)
    }

    @Test func aHugeValueIsCutAndSaysHowMuch() {
        let message = ControlError(.badRequest, "got '" + String(repeating: "x", count: 3 << 20) + "'").message
        let cut = 5 + (3 << 20) + 1 - ControlError.maxLineLength
        #expect(message.count == ControlError.maxLineLength + "… (\(cut) more characters)".count)
        #expect(message.hasSuffix("xxx… (3145334 more characters)"))
    }

    @Test func manyProblemsAreCounted() {
        let message = ControlError(.badRequest, (1...100).map { "problem \($0)" }.joined(separator: "\n")).message
        let lines = message.split(separator: "\n")
        #expect(lines.count == ControlError.maxLines + 1)
        #expect(lines.last == "… and 60 more lines")
    }

    @Test func anOrdinaryMessageIsUnchanged() {
        let text = "session 'checkout-1' has no stub 'pay' — list them with GET /__mockd/stubs"
        #expect(ControlError(.unknownStub, text).message == text)
    }
}
