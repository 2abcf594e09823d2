import Foundation

/// Partial answers built from a response's stored body: 206 with one range or `multipart/byteranges`, and 416
/// (RFC 9110 §14.3–§14.6, §15.3.7, §15.5.17).
enum RangeResponse {
    /// The `multipart/byteranges` boundary: fixed, so answers are reproducible byte for byte (tests, golden files);
    /// 40 characters no recorded body is expected to contain on a line of its own after `--`.
    static let boundary = "mockd-byteranges-7c2f91d04e6b3a58e1f0d9c2"

    /// `response` as the answer to `request`'s `Range`, or `nil` when the whole response stands as it is.
    ///
    /// A 200 is the whole representation: a satisfiable `Range` gets a 206 with those bytes (`Content-Range`, one
    /// range) or a `multipart/byteranges` body (several: one part each, in the request's order, with the original
    /// `Content-Type` and its own `Content-Range`), an unsatisfiable one a 416 with `Content-Range: bytes */N` and
    /// no body. A recorded 206 with `Content-Range: bytes A-B/N` holds bytes A…B of N: a range request gets the part
    /// of its ranges that the recording holds (a server may send less than asked, §14.1.2; an open `bytes=0-`
    /// gets bytes A…B), a 416 when the recording holds none of them; a request without `Range` (or with a failed
    /// `If-Range`) gets the recording as it is. A 206 without a parsable `Content-Range` (a status-code echo) is
    /// served as recorded. Any other status ignores `Range`.
    /// A body served from its file (`FileBody`) is cut the same way, by file offsets, without reading it.
    /// - Complexity: O(selected bytes) for a body in memory; O(ranges) for one served from its file.
    static func answer(_ request: HTTPRequest, _ response: MockResponse) -> MockResponse? {
        // A body served from its file is cut by file offsets (`FileBody.parts`), never read here.
        let held = response.fileBody?.size ?? response.body.count
        let window: ClosedRange<Int>
        let total: Int
        switch response.status {
        case 200:
            guard held > 0 else { return nil }
            window = 0...(held - 1)
            total = held
        case 206:
            guard let recorded = recordedWindow(response), recorded.window.count == held else { return nil }
            (window, total) = recorded
        default:
            return nil
        }
        let selection = RangeRequest.selection(
            for: request,
            etag: response.headers["etag"],
            lastModified: response.headers["last-modified"],
            length: total
        )
        switch selection {
        case .full:
            return nil
        case .unsatisfiable:
            return unsatisfiable(response, total: total)
        case .ranges(let ranges):
            let held = ranges.compactMap { range -> ClosedRange<Int>? in
                let lower = max(range.lowerBound, window.lowerBound)
                let upper = min(range.upperBound, window.upperBound)
                return lower <= upper ? lower...upper : nil
            }
            guard !held.isEmpty else { return unsatisfiable(response, total: total) }
            return partial(response, held, window: window, total: total)
        }
    }

    /// `A-B/N` of a recorded `Content-Range: bytes A-B/N`.
    static func recordedWindow(_ response: MockResponse) -> (window: ClosedRange<Int>, total: Int)? {
        guard let value = response.headers["content-range"]?.trimmingCharacters(in: .whitespaces),
            value.lowercased().hasPrefix("bytes ")
        else { return nil }
        let numbers = value.dropFirst(6).split(whereSeparator: { $0 == "-" || $0 == "/" })
        guard numbers.count == 3, let first = Int(numbers[0]), let last = Int(numbers[1]), let total = Int(numbers[2]),
            first <= last, last < total
        else { return nil }
        return (first...last, total)
    }

    /// 206 with `ranges` (absolute positions in the representation) of a body that holds bytes `window`.
    private static func partial(
        _ response: MockResponse,
        _ ranges: [ClosedRange<Int>],
        window: ClosedRange<Int>,
        total: Int
    ) -> MockResponse {
        var result = response
        result.status = 206
        var headers = response.headers
        headers.remove(name: "Content-Range")
        headers.remove(name: "Content-Length")
        if !headers.contains(name: "accept-ranges") { headers.add(name: "Accept-Ranges", value: "bytes") }
        var parts: [Part] = []
        if ranges.count == 1, let range = ranges.first {
            headers.add(name: "Content-Range", value: contentRange(range, total: total))
            parts = [.held(range)]
        } else {
            let type = headers["content-type"]
            headers.remove(name: "Content-Type")
            headers.add(name: "Content-Type", value: "multipart/byteranges; boundary=\(boundary)")
            for range in ranges {
                // The CRLF before each delimiter belongs to the delimiter (RFC 2046 §5.1.1), so none before the first.
                var partHeader = parts.isEmpty ? "" : "\r\n"
                partHeader += "--\(boundary)\r\n"
                if let type { partHeader += "Content-Type: \(type)\r\n" }
                partHeader += "Content-Range: \(contentRange(range, total: total))\r\n\r\n"
                parts.append(.bytes(Data(partHeader.utf8)))
                parts.append(.held(range))
            }
            parts.append(.bytes(Data("\r\n--\(boundary)--\r\n".utf8)))
        }
        if var file = response.fileBody {
            file.parts = parts.map { part in
                switch part {
                case .bytes(let data): return .bytes(data)
                case .held(let range): return .file(offset: range.lowerBound - window.lowerBound, count: range.count)
                }
            }
            result.fileBody = file
        } else {
            let body = response.body
            let start = body.startIndex - window.lowerBound
            var bytes = Data()
            for part in parts {
                switch part {
                case .bytes(let data): bytes.append(data)
                case .held(let range): bytes.append(body[(start + range.lowerBound)..<(start + range.upperBound + 1)])
                }
            }
            result.body = bytes
        }
        result.headers = headers
        return result
    }

    /// A piece of a 206 body: framing bytes, or a range (absolute positions) of the bytes the response holds.
    private enum Part {
        case bytes(Data)
        case held(ClosedRange<Int>)
    }

    /// 416 with `Content-Range: bytes */N` and no content (RFC 9110 §15.5.17).
    private static func unsatisfiable(_ response: MockResponse, total: Int) -> MockResponse {
        var result = response
        result.status = 416
        var headers = response.headers
        for name in ["Content-Range", "Content-Length", "Content-Type", "Content-Encoding", "Content-Language"] {
            headers.remove(name: name)
        }
        if !headers.contains(name: "accept-ranges") { headers.add(name: "Accept-Ranges", value: "bytes") }
        headers.add(name: "Content-Range", value: "bytes */\(total)")
        result.headers = headers
        result.body = Data()
        if result.fileBody != nil { result.fileBody = nil }
        return result
    }

    /// `bytes first-last/total`.
    static func contentRange(_ range: ClosedRange<Int>, total: Int) -> String {
        "bytes \(range.lowerBound)-\(range.upperBound)/\(total)"
    }
}
