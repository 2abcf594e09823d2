import Dispatch
import Foundation
import MockdPlatform

/// One HTTP/1.1 request over a plain TCP socket, bounded by a single deadline (`mockd health`, and `mockd mcp`
/// steering a daemon through its control API).
enum HTTPProbe {
    struct Answer {
        let status: Int
        let body: Data
    }

    /// Why the probe got no HTTP answer; the description is the end of the error line.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Answers larger than this are cut; the status line is all that matters.
    private static let maxAnswerBytes = 1 << 20

    /// Connects (trying every address `host` resolves to), sends the request, reads until the server
    /// closes the connection (the request says `Connection: close`).
    /// - Throws: `Failure` for resolution, connection, timeout and protocol errors.
    static func get(
        host: String,
        port: Int,
        path: String,
        headers: [(String, String)],
        timeoutMs: Double
    ) throws -> Answer {
        try request(
            method: "GET",
            host: host,
            port: port,
            path: path,
            headers: headers,
            body: nil,
            timeoutMs: timeoutMs
        )
    }

    /// `method path` with `headers` and, when given, `body` (its `Content-Length` added); the headers must say
    /// `Connection: close` or the server must close after answering.
    /// - Throws: `Failure` for resolution, connection, timeout and protocol errors.
    static func request(
        method: String,
        host: String,
        port: Int,
        path: String,
        headers: [(String, String)],
        body: Data?,
        timeoutMs: Double
    ) throws -> Answer {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(1, timeoutMs) * 1_000_000)
        let socket = try connect(host: host, port: port, deadline: deadline, timeoutMs: timeoutMs)
        defer { FileDescriptor(rawValue: socket).close() }
        var request = "\(method) \(path) HTTP/1.1\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if let body { request += "Content-Length: \(body.count)\r\n" }
        request += "\r\n"
        try send(
            Array(request.utf8) + (body.map(Array.init) ?? []),
            on: socket,
            deadline: deadline,
            timeoutMs: timeoutMs
        )
        let bytes = try receive(on: socket, deadline: deadline, timeoutMs: timeoutMs)
        return try parse(bytes)
    }

    private static func connect(host: String, port: Int, deadline: UInt64, timeoutMs: Double) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = PlatformSocket.streamType
        hints.ai_flags = AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(host, String(port), &hints, &results)
        guard lookup == 0, results != nil else {
            throw Failure(description: "cannot resolve '\(host)' (\(String(cString: gai_strerror(lookup))))")
        }
        defer { freeaddrinfo(results) }
        var lastError = ECONNREFUSED
        var candidate = results
        while let address = candidate {
            candidate = address.pointee.ai_next
            let socket = PlatformSocket.nonBlockingStream(family: address.pointee.ai_family)
            guard socket >= 0 else {
                lastError = errno
                continue
            }
            if PlatformSocket.connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                return socket
            }
            var code = errno
            if code == EINPROGRESS {
                guard try wait(for: Int16(POLLOUT), on: socket, deadline: deadline) else {
                    FileDescriptor(rawValue: socket).close()
                    throw timedOut(timeoutMs)
                }
                var length = socklen_t(MemoryLayout<Int32>.size)
                code = 0
                getsockopt(socket, SOL_SOCKET, SO_ERROR, &code, &length)
                if code == 0 { return socket }
            }
            FileDescriptor(rawValue: socket).close()
            lastError = code
        }
        let reason =
            lastError == ECONNREFUSED
            ? "connection refused (is mockd running on this port?)" : String(cString: strerror(lastError))
        throw Failure(description: reason)
    }

    private static func send(_ bytes: [UInt8], on socket: Int32, deadline: UInt64, timeoutMs: Double) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                PlatformSocket.send(socket, $0.baseAddress! + offset, bytes.count - offset)
            }
            if written > 0 {
                offset += written
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                guard try wait(for: Int16(POLLOUT), on: socket, deadline: deadline) else {
                    throw timedOut(timeoutMs)
                }
            } else {
                throw Failure(description: "sending the request failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func receive(on socket: Int32, deadline: UInt64, timeoutMs: Double) throws -> [UInt8] {
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while answer.count < maxAnswerBytes {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                answer += buffer[0..<count]
            } else if count == 0 {
                break
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                guard try wait(for: Int16(POLLIN), on: socket, deadline: deadline) else {
                    throw timedOut(timeoutMs)
                }
            } else if errno == ECONNRESET, !answer.isEmpty {
                break
            } else {
                throw Failure(
                    description: "the connection failed while reading the answer: \(String(cString: strerror(errno)))"
                )
            }
        }
        return answer
    }

    /// Polls until `events` or the deadline; `false` on timeout.
    private static func wait(for events: Int16, on socket: Int32, deadline: UInt64) throws -> Bool {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return false }
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(Int64(Int32.max), Int64((deadline - now) / 1_000_000) + 1)))
            if ready > 0 { return true }
            if ready < 0, errno != EINTR {
                throw Failure(description: "poll failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func timedOut(_ timeoutMs: Double) -> Failure {
        Failure(description: "no answer within \(EnvironmentDefaults.format(timeoutMs / 1000)) s")
    }

    /// The status code and body of `HTTP/1.x NNN …\r\n…\r\n\r\nbody`.
    private static func parse(_ bytes: [UInt8]) throws -> Answer {
        guard !bytes.isEmpty else { throw Failure(description: "the connection closed without an answer") }
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd = bytes.count
        if bytes.count >= 4 {
            for index in 0...(bytes.count - 4) where bytes[index..<index + 4].elementsEqual(separator) {
                headerEnd = index
                break
            }
        }
        let head = String(decoding: bytes[0..<headerEnd], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw Failure(description: "not an HTTP answer: '\(statusLine.prefix(60))'")
        }
        let body = headerEnd + 4 <= bytes.count ? Data(bytes[(headerEnd + 4)...]) : Data()
        return Answer(status: status, body: body)
    }
}
