import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// Card numbers never survive a default import (issue 18, PCI DSS 3.4): Luhn-valid PANs with a scheme's prefix are
/// masked but the last four digits in JSON and text, ids and timestamps are left alone, and `lint` finds a PAN left
/// in a hand-made body.
@Suite(.serialized)
struct CardNumberTests {
    typealias HAR = ImportHygieneTests

    @Test(arguments: [
        ("4111 1111 1111 1111", true), ("4111-1111-1111-1111", true), ("4111111111111111", true),
        ("5555 5555 5555 4444", true), ("3782 822463 10005", true), ("6011111111111117", true),
        ("4111 1111 1111 1112", false),  // fails Luhn
        ("1764633600001", false),  // a timestamp in ms
        ("1234567890123456789", false),  // a snowflake id
        ("4111 1111-1111 1111", false),  // mixed separators
    ])
    func cardNumbersAreLuhnValidAndIssued(_ text: String, _ isCard: Bool) {
        #expect(CardNumbers.isCardNumber(text) == isCard)
    }

    @Test func aDefaultImportMasksCardsButTheLastFourAndLintFindsOnesLeft() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("pay.har")
        try HAR.write(
            [
                HAR.entry(
                    "GET",
                    "https://api.test/v1/profile",
                    text:
                        #"{"card":"4111 1111 1111 1111","note":"paid with 5555-5555-5555-4444 today","id":"1234567890123456789","ts":1764633600001,"byCard":{"4111 1111 1111 1111":1},"n":4111111111111111}"#
                ),
                HAR.entry(
                    "GET",
                    "https://api.test/receipt",
                    headers: [("Content-Type", "text/html")],
                    text: "<p>Card 378282246310005 charged</p>"
                ),
            ],
            to: har
        )
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "pay", "--root", root.path])
        try #require(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stdout.contains(
                "    response body: card number in field card → masked but the last four digits ×1 (entry 1)"
            ),
            "\(imported.stdout)"
        )
        let daemon = try RunningDaemon(["--set", "pay", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let responses = try Curl.batch([
            CurlRequest(url: daemon.baseURL + "/v1/profile"), CurlRequest(url: daemon.baseURL + "/receipt"),
        ])
        #expect(
            responses[0].text
                == #"{"card":"**** **** **** 1111","note":"paid with ****-****-****-4444 today","id":"1234567890123456789","ts":1764633600001,"byCard":{"**** **** **** 1111":1},"n":4111111111111111}"#
        )
        #expect(responses[1].text == "<p>Card ***********0005 charged</p>")
        // Masked as whole strings: the body stays JSON (a key holding the card is masked with it).
        #expect((try? JSONSerialization.jsonObject(with: responses[0].body)) != nil)
        let clean = try ProcessRunner.mockd(["lint", root.appendingPathComponent("mocks/pay").path])
        #expect(clean.status == 0, "\(clean.stdout)")

        let body = root.appendingPathComponent("mocks/pay/bodies/GET_receipt.html")
        try #require(FileManager.default.fileExists(atPath: body.path))
        try "<p>Card 4111 1111 1111 1111</p>".write(to: body, atomically: true, encoding: .utf8)
        let lint = try ProcessRunner.mockd(["lint", root.appendingPathComponent("mocks/pay").path])
        #expect(lint.status == 1)
        #expect(lint.stdout.contains("card number"), "\(lint.stdout)")
    }
}
