import Testing

@testable import MockdCore

/// A located error is the one line printed to the user, whatever the values from the user's files it quotes.
struct LocatedErrorTests {
    @Test func controlCharactersAreEscaped() {
        let error = ConfigError(
            .invalidValue,
            file: "mocks/a\tb/index.json",
            jsonPath: "stubs[0].id",
            message: "duplicate stub id 'x\r\ny\u{1B}[31m\u{7F}\u{85}\u{2028}\u{2029}z'"
        )
        #expect(
            error.description
                == #"mocks/a\tb/index.json: stubs[0].id: duplicate stub id 'x\r\ny\u{1B}[31m\u{7F}\u{85}\u{2028}\u{2029}z'"#
        )
        #expect(ConfigError(.invalidValue, file: "f\n", message: "m").description == #"f\n: m"#)
    }

    @Test func textWithoutControlsIsUnchanged() {
        let error = ConfigError(.invalidValue, file: "mocks/café/index.json", message: "'✓ \"quoted\" \\ back'")
        #expect(error.description == #"mocks/café/index.json: '✓ "quoted" \ back'"#)
    }
}
