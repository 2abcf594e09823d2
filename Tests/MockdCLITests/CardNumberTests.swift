import Foundation
import MockdTestSupport
import Testing

@testable import MockdCore

/// Card numbers never survive a default import (issue 18, PCI DSS 3.4): Luhn-valid PANs with a scheme's prefix are
/// masked but the last four digits in JSON and text, ids and timestamps are left alone, and `lint` finds a PAN left
/// in a hand-made body. Masking is for data, never code (issue 33): a JavaScript bundle, a style sheet, WebAssembly
/// and an HTML page's scripts are served as recorded, and `lint` reports what it sees there.
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

    @Test func codeIsServedAsRecordedAndLintStillReportsItsCardShapedNumbers() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("shop.har")
        let bundle = #"const TEST_CARD=4111111111111111;var x="5555 5555 5555 4444";export{TEST_CARD};"#
        let style = ".hero{width:4111111111111111px}"
        let page =
            #"<p>Card 4111 1111 1111 1111</p><script>var n=4111111111111111;</script><script type="application/ld+json">{"card":"5555555555554444"}</script>"#
        let wasm = Data([0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00]) + Data("4111111111111111".utf8)
        try HAR.write(
            [
                HAR.entry(
                    "GET",
                    "https://shop.test/app.js",
                    headers: [("Content-Type", "application/javascript")],
                    text: bundle
                ),
                // No useful media type: the path says it is code.
                HAR.entry(
                    "GET",
                    "https://shop.test/chunk.mjs",
                    headers: [("Content-Type", "text/plain")],
                    text: bundle
                ),
                HAR.entry("GET", "https://shop.test/site.css", headers: [("Content-Type", "text/css")], text: style),
                HAR.entry("GET", "https://shop.test/pay", headers: [("Content-Type", "text/html")], text: page),
                HAR.entry(
                    "GET",
                    "https://shop.test/app.wasm",
                    headers: [("Content-Type", "application/wasm")],
                    text: wasm.base64EncodedString(),
                    encoding: "base64"
                ),
                HAR.entry("GET", "https://shop.test/v1/card", text: #"{"number":"4111111111111111"}"#),
            ],
            to: har
        )
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "shop", "--root", root.path])
        try #require(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stdout.contains(
                "  redacted:       3 values (--keep-secrets keeps them)\n"
            ),
            "\(imported.stdout)"
        )
        let daemon = try RunningDaemon(["--set", "shop", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let responses = try Curl.batch(
            ["/app.js", "/chunk.mjs", "/site.css", "/pay", "/app.wasm", "/v1/card"].map {
                CurlRequest(url: daemon.baseURL + $0)
            }
        )
        #expect(responses.map(\.status) == [200, 200, 200, 200, 200, 200])
        #expect(responses[0].text == bundle)
        #expect(responses[1].text == bundle)
        #expect(responses[2].text == style)
        #expect(
            responses[3].text
                == #"<p>Card **** **** **** 1111</p><script>var n=4111111111111111;</script><script type="application/ld+json">{"card":"************4444"}</script>"#
        )
        #expect(responses[4].body == wasm)
        #expect(responses[5].text == #"{"number":"************1111"}"#)
        let lint = try ProcessRunner.mockd(["lint", root.appendingPathComponent("mocks/shop").path])
        #expect(lint.status == 1)
        for file in ["GET_app.js", "GET_chunk.mjs.txt", "GET_site.css", "GET_pay.html"] {
            #expect(lint.stdout.contains("/bodies/\(file): line 1, column"), "\(file): \(lint.stdout)")
        }
    }
}
