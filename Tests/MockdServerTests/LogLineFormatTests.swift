import Foundation
import Testing

@testable import MockdCore
@testable import MockdServer

/// The log line's number and time formats, written without Foundation's formatter, give the same text.
struct LogLineFormatTests {
    @Test(arguments: [0, 0.004, 0.005, 0.015, 0.125, 1, 1.999, 2.005, 12.3456, 999.995, 1234.5, 86_400_000.25])
    func twoDecimalsMatchesPrintf(_ value: Double) {
        #expect(RequestLogLine.twoDecimals(value) == String(format: "%.2f", value))
    }

    @Test func timestampIsRFC3339WithMilliseconds() throws {
        let before = Date()
        let text = Timestamp.iso8601Now()
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let parsed = try #require(formatter.date(from: text), "\(text)")
        #expect(text.count == 24 && text.hasSuffix("Z"))
        #expect(parsed.timeIntervalSince(before) > -0.002 && parsed.timeIntervalSince(before) < 5)
    }

    @Test func controlBytesOfTheTargetAndIdAreEscaped() {
        let line = RequestLogLine(
            method: "GET",
            target: "/a\u{1B}[31mred\u{7F}\u{01}\té?q=1",
            status: 200,
            fault: nil,
            answeredBy: "id\nfake",
            elapsedMs: 0.5
        )
        #expect(line.message == #"GET /a\x1B[31mred\x7F\x01\x09é?q=1 200 id\x0Afake 0.50ms"#)
        let plain = RequestLogLine(
            method: "GET",
            target: "/ok?q=ü",
            status: 404,
            fault: nil,
            answeredBy: "unmatched",
            elapsedMs: 1
        )
        #expect(plain.message == "GET /ok?q=ü 404 unmatched 1.00ms")
    }
}
