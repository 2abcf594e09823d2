import CMicroHTTPD
import Foundation
import MockdCore

/// Converts libmicrohttpd's request data to Swift values, once, at the edge.
enum RequestReader {
    /// The raw request-target: MHD's (not unescaped) path, an absolute-form target reduced to its path
    /// (RFC 9112 §3.2.2), and the query rebuilt from MHD's argument list in order.
    /// Whether the request line's target is absolute-form (`http://host/x`), which `target(of:url:)` turns into its path.
    static func isAbsoluteForm(_ url: UnsafePointer<CChar>?) -> Bool {
        guard let url, url.pointee == CChar(UInt8(ascii: "h")) else { return false }
        return strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0
    }

    /// Whether the path libmicrohttpd split from the request line (its query is parsed apart, so this is the target
    /// before any `?`) holds a space or a tab: one `strpbrk`, not a Swift loop over the target's bytes.
    static func hasWhitespace(_ url: UnsafePointer<CChar>?) -> Bool {
        guard let url else { return false }
        return strpbrk(url, " \t") != nil
    }

    static func target(of connection: OpaquePointer, url: UnsafePointer<CChar>?) -> String {
        var path = url.map { String(cString: $0) } ?? "/"
        if url?.pointee == CChar(UInt8(ascii: "h")), path.hasPrefix("http://") || path.hasPrefix("https://") {
            let afterScheme = path[path.index(path.firstIndex(of: ":")!, offsetBy: 3)...]
            path = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
        }
        var pairs: [String] = []
        _ = withUnsafeMutablePointer(to: &pairs) { pointer in
            MHD_get_connection_values(
                connection,
                .GET_ARGUMENT_KIND,
                { cls, _, key, value in
                    guard let cls, let key else { return .YES }
                    let pairs = cls.assumingMemoryBound(to: [String].self)
                    let name = String(cString: key)
                    pairs.pointee.append(value.map { "\(name)=\(String(cString: $0))" } ?? name)
                    return .YES
                },
                pointer
            )
        }
        return pairs.isEmpty ? path : path + "?" + pairs.joined(separator: "&")
    }

    /// The method as a string; the common ones as literals, which cost no UTF-8 validation or allocation
    /// and need no token check (`isKnown`).
    static func method(_ text: UnsafePointer<CChar>) -> (method: String, isKnown: Bool) {
        if strcmp(text, "GET") == 0 { return ("GET", true) }
        if strcmp(text, "POST") == 0 { return ("POST", true) }
        if strcmp(text, "PUT") == 0 { return ("PUT", true) }
        if strcmp(text, "DELETE") == 0 { return ("DELETE", true) }
        if strcmp(text, "HEAD") == 0 { return ("HEAD", true) }
        return (String(cString: text), false)
    }

    /// The protocol version as a string; `HTTP/1.1` and `HTTP/1.0` as literals.
    static func version(_ text: UnsafePointer<CChar>) -> String {
        if strcmp(text, "HTTP/1.1") == 0 { return "HTTP/1.1" }
        if strcmp(text, "HTTP/1.0") == 0 { return "HTTP/1.0" }
        return String(cString: text)
    }

    /// Packed into one buffer (`HTTPHeaders.Packer`) from libmicrohttpd's names and values with their lengths;
    /// strings are made only for the fields someone lists; the same fields as the connection's previous request share
    /// its bytes. Each field is inspected on the way (`HeadFieldProblems`, for `RequestCheck`).
    static func readHeaders(of connection: OpaquePointer, into context: RequestContext) {
        var problems = HeadFieldProblems()
        context.headers = HTTPHeaders(
            packing: { packer in
                withUnsafeMutablePointer(to: &packer) { packer in
                    var reading = FieldReading(packer: packer, problems: HeadFieldProblems())
                    _ = withUnsafeMutablePointer(to: &reading) { pointer in
                        MHD_get_connection_values_n(
                            connection,
                            .HEADER_KIND,
                            { cls, _, key, keySize, value, valueSize in
                                guard let cls, let key else { return .YES }
                                let reading = cls.assumingMemoryBound(to: FieldReading.self)
                                reading.pointee.problems.inspect(
                                    key: key,
                                    keySize: keySize,
                                    value: value,
                                    valueSize: valueSize
                                )
                                reading.pointee.packer.pointee.append(
                                    name: UnsafeRawBufferPointer(start: key, count: keySize),
                                    value: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
                                )
                                return .YES
                            },
                            pointer
                        )
                    }
                    problems = reading.problems
                }
            },
            reusing: context.previousHeaders
        )
        context.fieldProblems = problems
    }

    /// What the field callback writes to: the packer and what the fields showed.
    private struct FieldReading {
        let packer: UnsafeMutablePointer<HTTPHeaders.Packer>
        var problems: HeadFieldProblems
    }
}
