import Foundation
import MockdTestSupport
import Testing

/// The per-request log never makes a request wait (issue 23): with standard error a pipe nobody reads (a test
/// runner that does not drain it), every request is still answered; lines that did not fit are counted in
/// `/__mockd/health` and the next line that gets out says how many were dropped.
struct LogBufferTests {
    @Test func anUnreadStandardErrorNeverStopsTheDaemon() throws {
        let root = try Paths.makeRoot(scenario: #"{"sets": ["chat"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let process = Process()
        process.executableURL = Paths.mockdBinary
        process.arguments = ["--config", "s", "--root", root.path, "--port", "0"]
        let output = Pipe()
        let errors = Pipe()  // never read while requests run: 64 KiB of lines fill it
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
        }
        var firstLine = Data()
        while !firstLine.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            firstLine.append(chunk)
        }
        let line = String(decoding: firstLine, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        try #require(line.hasPrefix("listening on "), "\(line)")
        let base = String(line.dropFirst("listening on ".count))

        // About 2 MB of log lines: twice the buffer, thirty times the pipe.
        let count = 20_000
        let responses = try Curl.batch(Array(repeating: CurlRequest(url: base + "/v1/me"), count: count))
        #expect(responses.count == count)
        #expect(responses.allSatisfy { $0.status == 200 })
        let health = try Curl.send(CurlRequest(url: base + "/__mockd/health"))
        let dropped =
            (try JSONSerialization.jsonObject(with: health.body) as? [String: Any])?["logLinesDropped"] as? Int ?? -1
        #expect(dropped > 0 && dropped < count, "logLinesDropped: \(dropped)")

        process.terminate()
        let logged = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(logged.contains(" log lines dropped: standard error was not read fast enough"), "\(logged.suffix(300))")
    }
}
