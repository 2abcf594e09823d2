import Testing

@testable import MockdCore

/// A located error is the one line printed to the user, whatever the values from the user's files it quotes: control
/// bytes are written `\xNN`, as the request log line writes them.
struct LocatedErrorTests {
    @Test func controlCharactersAreEscaped() {
        let error = ConfigError(
            .invalidValue,
            file: "mocks/a\tb/index.json",
            jsonPath: "stubs[0].id",
            message: "duplicate stub id 'x\r\ny\u{1B}[31m\u{7F}\u{0}z'"
        )
        #expect(
            error.description
                == #"mocks/a\x09b/index.json: stubs[0].id: duplicate stub id 'x\x0D\x0Ay\x1B[31m\x7F\x00z'"#
        )
        #expect(ConfigError(.invalidValue, file: "f\n", message: "m").description == #"f\x0A: m"#)
    }

    @Test func textWithoutControlsIsUnchanged() {
        let error = ConfigError(
            .invalidValue,
            file: "mocks/café/index.json",
            message: "'✓ \"quoted\" \\ back \u{85}\u{2028}'"
        )
        #expect(error.description == "mocks/café/index.json: '✓ \"quoted\" \\ back \u{85}\u{2028}'")
    }
}
