import Foundation
import Testing

@testable import MockdCore

/// RFC 3339 texts are written digit by digit; they must be the bytes `String(format:)` gave, at every date.
@Suite struct DateFormatsTests {
    /// The texts as `String(format:)` writes them from `gmtime_r`'s fields.
    private func reference(seconds: Int, milliseconds: Int?) -> String {
        DateFormats.formatted(DateFormats.utcParts(of: time_t(seconds)), milliseconds: milliseconds)
    }

    @Test func digitByDigitIsWhatStringFormatWrites() {
        var generator = SystemRandomNumberGenerator()
        let edges = [0, 1, 59, 86_399, 951_782_400, 1_764_000_000, 253_402_300_799, -1, -86_400, -62_167_219_200]
        let random = (0..<5_000).map { _ in Int.random(in: -62_167_219_200...253_402_300_799, using: &generator) }
        for seconds in edges + random {
            let date = Date(timeIntervalSince1970: Double(seconds))
            #expect(DateFormats.rfc3339(date) == reference(seconds: seconds, milliseconds: nil), "\(seconds)")
            let milliseconds = Int.random(in: 0...999, using: &generator)
            let precise = Date(timeIntervalSince1970: (Double(seconds * 1000 + milliseconds)) / 1000)
            if seconds >= 0 {
                #expect(
                    DateFormats.rfc3339Milliseconds(precise) == reference(seconds: seconds, milliseconds: milliseconds),
                    "\(seconds).\(milliseconds)"
                )
            }
        }
        #expect(
            DateFormats.rfc3339Milliseconds(Date(timeIntervalSince1970: 1_764_450_166.042))
                == "2025-11-29T21:02:46.042Z"
        )
        #expect(DateFormats.rfc3339(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        // Years past 9999 keep String(format:)'s wider field.
        #expect(DateFormats.rfc3339(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00Z")
    }
}
