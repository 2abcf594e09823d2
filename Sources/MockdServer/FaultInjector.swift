import CMicroHTTPD
import Foundation
import MockdCore
import MockdFormat
import MockdPlatform

/// Breaks an exchange at the socket, the way real networks and servers fail.
///
/// Runs on the connection's worker thread before any response is queued: it may write raw bytes to the
/// socket, then the handler returns `MHD_NO` so libmicrohttpd closes the connection. The daemon runs with
/// `MHD_USE_TURBO`, which closes without a prior `shutdown()`, so a zero linger time really sends a reset.
enum FaultInjector {
    /// Carries out `fault` (all but `noResponse`, which the bridge handles by suspending).
    static func inject(_ fault: Fault, response: MockResponse, connection: OpaquePointer) {
        let socket = CMicroHTTPD_connectionSocket(connection)
        guard socket >= 0 else { return }
        switch fault {
        case .connectionReset:
            var linger = Foundation.linger(l_onoff: 1, l_linger: 0)
            setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Foundation.linger>.size))
        case .emptyResponse, .noResponse:
            break
        case .offline, .dnsFailure, .tlsFailure, .timeout, .cancelled:
            // Client faults reach here only as their wire fallback (`ClientFaultDelivery`).
            inject(fault.wireFallback, response: response, connection: connection)
        case .truncatedBody:
            var head =
                statusLine(response.status) + headerLines(response, excluding: ["content-length", "transfer-encoding"])
            head += "Content-Length: \(response.body.count)\r\n\r\n"
            send(Data(head.utf8) + response.body.prefix(response.body.count / 2), on: socket)
        case .malformedChunk:
            var head =
                statusLine(response.status) + headerLines(response, excluding: ["content-length", "transfer-encoding"])
            head += "Transfer-Encoding: chunked\r\n\r\n"
            // A chunk-size line that is not hexadecimal (RFC 9112 §7.1), after one valid chunk. With an empty body
            // the invalid line comes first: a zero-size chunk would be a valid end of the body.
            let first = response.body.prefix(max(1, response.body.count / 2))
            var bytes = Data(head.utf8)
            if !first.isEmpty {
                bytes += Data("\(String(first.count, radix: 16))\r\n".utf8) + first + Data("\r\n".utf8)
            }
            bytes += Data("zz-not-a-size\r\n".utf8)
            send(bytes, on: socket)
        }
    }

    private static func statusLine(_ status: Int) -> String {
        let reason = MHD_get_reason_phrase_for(UInt32(status)).map { String(cString: $0) } ?? "Unknown"
        return "HTTP/1.1 \(status) \(reason)\r\n"
    }

    private static func headerLines(_ response: MockResponse, excluding: Set<String>) -> String {
        response.headers.filter { !excluding.contains($0.name.lowercased()) }.map { "\($0.name): \($0.value)\r\n" }
            .joined()
    }

    /// Best-effort write of a small payload on a non-blocking socket (up to 1 s).
    private static func send(_ data: Data, on socket: Int32) {
        var offset = 0
        let deadline = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
        while offset < data.count, DispatchTime.now().uptimeNanoseconds < deadline {
            let written = data.withUnsafeBytes { raw in
                PlatformSocket.send(socket, raw.baseAddress!.advanced(by: offset), data.count - offset)
            }
            if written > 0 {
                offset += written
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
                _ = poll(&descriptor, 1, 100)
            } else {
                return
            }
        }
    }
}
