public import Foundation

/// One request for curl.
public struct CurlRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: Data?

    public init(method: String = "GET", url: String, headers: [(String, String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// What curl received.
public struct CurlResponse: Sendable {
    /// 0 when the transfer failed (reset, empty reply…).
    public let status: Int
    /// Response header fields in order (of the final response when there were 1xx interim ones).
    public let headers: [(name: String, value: String)]
    public let body: Data
    /// Why the transfer failed, as curl says it (`curl 56: Recv failure: Connection reset by peer`); `nil` when it
    /// completed. What a status 0 means.
    public let failure: String?

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// A real HTTP client for tests: the curl command line tool, byte-exact, never following redirects.
public enum Curl {
    /// Sends one request.
    public static func send(_ request: CurlRequest) throws -> CurlResponse {
        try batch([request])[0]
    }

    /// Sends requests in order over one curl process (connections are reused, as an app would).
    public static func batch(_ requests: [CurlRequest]) throws -> [CurlResponse] {
        try run(requests, parallel: false)
    }

    /// Sends all requests at once, each on its own connection (`curl --parallel`).
    public static func parallel(_ requests: [CurlRequest]) throws -> [CurlResponse] {
        try run(requests, parallel: true)
    }

    private static func run(_ requests: [CurlRequest], parallel: Bool) throws -> [CurlResponse] {
        if requests.isEmpty { return [] }
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var config = parallel ? "parallel\nparallel-max = \(min(requests.count, 300))\nparallel-immediate\n" : ""
        for (index, request) in requests.enumerated() {
            if index > 0 { config += "next\n" }
            config += "url = \(quote(request.url))\n"
            config += "silent\ngloboff\npath-as-is\n"
            if request.method == "HEAD" {
                config += "head\n"
            } else if request.method != "GET" || request.body != nil {
                config += "request = \(quote(request.method))\n"
            }
            for (name, value) in request.headers
            where !name.contains("\n") && !value.contains("\n") && !value.contains("\r") {
                config += value.isEmpty ? "header = \(quote(name + ";"))\n" : "header = \(quote("\(name): \(value)"))\n"
            }
            if let body = request.body {
                let bodyURL = folder.appendingPathComponent("request-\(index)")
                try body.write(to: bodyURL)
                config += "data-binary = \(quote("@" + bodyURL.path))\n"
            }
            config += "output = \(quote(folder.appendingPathComponent("body-\(index)").path))\n"
            config += "dump-header = \(quote(folder.appendingPathComponent("headers-\(index)").path))\n"
            config += "write-out = \(quote(outcomeLine(index)))\n"
        }
        let configURL = folder.appendingPathComponent("curl.config")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        let outcomes = parseOutcomes(
            try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/curl"), ["--config", configURL.path]).stdout
        )
        return requests.indices.map { index in
            // With `--head` curl writes the headers to the output file; a HEAD answer has no body to read.
            let body =
                requests[index].method == "HEAD"
                ? Data() : (try? Data(contentsOf: folder.appendingPathComponent("body-\(index)"))) ?? Data()
            let rawHeaders =
                (try? String(contentsOf: folder.appendingPathComponent("headers-\(index)"), encoding: .utf8)) ?? ""
            let status = parseStatus(rawHeaders)
            return CurlResponse(
                status: status,
                headers: parseHeaders(rawHeaders),
                body: body,
                failure: outcomes[index] ?? (status == 0 ? "curl wrote no outcome line for this transfer" : nil)
            )
        }
    }

    /// The `--write-out` line of transfer `index`: its number, curl's exit code for it and curl's error message
    /// (empty on success), on stdout (bodies go to files), in whichever order the transfers end.
    static func outcomeLine(_ index: Int) -> String {
        "mockd-transfer \(index) %{exitcode} %{errormsg}\\n"
    }

    /// Transfer number → `nil` for a transfer that completed (exit code 0), else `curl CODE: MESSAGE`; a transfer
    /// with no line is missing (curl ended before it).
    static func parseOutcomes(_ stdout: String) -> [Int: String?] {
        var outcomes: [Int: String?] = [:]
        for line in stdout.split(separator: "\n") where line.hasPrefix("mockd-transfer ") {
            let fields = line.dropFirst("mockd-transfer ".count).split(separator: " ", maxSplits: 2)
            guard fields.count >= 2, let index = Int(fields[0]), let code = Int(fields[1]) else { continue }
            let message = fields.count == 3 ? String(fields[2]) : ""
            outcomes[index] = code == 0 ? .some(nil) : "curl \(code): \(message)"
        }
        return outcomes
    }

    /// The status code of the last response block (`HTTP/1.1 200 OK`), or 0 when there was no response.
    static func parseStatus(_ text: String) -> Int {
        let blocks = text.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
        guard let statusLine = blocks.last?.components(separatedBy: "\r\n").first else { return 0 }
        let parts = statusLine.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
    }

    /// Header fields of the last response block in a `--dump-header` file.
    static func parseHeaders(_ text: String) -> [(name: String, value: String)] {
        let blocks = text.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
        guard let last = blocks.last else { return [] }
        return last.components(separatedBy: "\r\n").dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    /// A double-quoted curl config string.
    static func quote(_ text: String) -> String {
        var output = "\""
        for character in text {
            switch character {
            case "\\": output += "\\\\"
            case "\"": output += "\\\""
            case "\t": output += "\\t"
            default: output.append(character)
            }
        }
        return output + "\""
    }
}

extension Curl {
    /// Runs curl with `arguments` as given (plus `--silent --show-error`) and returns its exit status, stdout and
    /// stderr: for faults, where curl's exit code is the observation (52 empty reply, 56 reset, 18 partial…).
    public static func run(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/curl"), ["--silent", "--show-error"] + arguments)
    }

    /// Starts curl as `run` does, without waiting: for a transfer whose output a test watches while it goes on
    /// (an event stream), then `waitForExit()` and `result`.
    public static func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(URL(fileURLWithPath: "/usr/bin/curl"), ["--silent", "--show-error"] + arguments)
    }
}
