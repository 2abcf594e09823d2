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

    /// The target, or `nil` when it is `previous` (the connection's previous target) byte for byte: that string is
    /// then kept as it is, without making and checking a string again (or a retain and release to hand it back).
    static func target(of connection: OpaquePointer, url: UnsafePointer<CChar>?, unlessItIs previous: String) -> String?
    {
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
        if pairs.isEmpty, let url, url.pointee != CChar(UInt8(ascii: "h")) {
            let length = strlen(url)
            // Read in place (a copy for `withUTF8` cost a retain and release).
            if previous.utf8.count == length,
                previous.utf8.withContiguousStorageIfAvailable({
                    ShortBytes.equal(UnsafeRawPointer(url), UnsafeRawBufferPointer($0))
                }) == true
            {
                return nil
            }
        }
        return target(url: url, arguments: pairs)
    }

    /// The target from MHD's path and its arguments, in order.
    private static func target(url: UnsafePointer<CChar>?, arguments pairs: [String]) -> String {
        var path = url.map { String(cString: $0) } ?? "/"
        if url?.pointee == CChar(UInt8(ascii: "h")), path.hasPrefix("http://") || path.hasPrefix("https://") {
            let afterScheme = path[path.index(path.firstIndex(of: ":")!, offsetBy: 3)...]
            path = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
        }
        return pairs.isEmpty ? path : path + "?" + pairs.joined(separator: "&")
    }

    /// The method as a string; the common ones as literals, which cost no UTF-8 validation or allocation
    /// and need no token check (`isKnown`).
    static func method(_ text: UnsafePointer<CChar>) -> (method: String, isKnown: Bool) {
        if equals(text, "GET") { return ("GET", true) }
        if equals(text, "POST") { return ("POST", true) }
        if equals(text, "PUT") { return ("PUT", true) }
        if equals(text, "DELETE") { return ("DELETE", true) }
        if equals(text, "HEAD") { return ("HEAD", true) }
        return (String(cString: text), false)
    }

    /// The protocol version as a string; `HTTP/1.1` and `HTTP/1.0` as literals.
    static func version(_ text: UnsafePointer<CChar>) -> String {
        if equals(text, "HTTP/1.1") { return "HTTP/1.1" }
        if equals(text, "HTTP/1.0") { return "HTTP/1.0" }
        return String(cString: text)
    }

    /// Whether the C string `text` is `literal` (its bytes, then the terminating zero): compared in place, byte by
    /// byte up to the first difference, without a call to `strcmp` (twice a request).
    @inline(__always)
    static func equals(_ text: UnsafePointer<CChar>, _ literal: StaticString) -> Bool {
        let expected = literal.utf8Start
        let bytes = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
        for index in 0..<literal.utf8CodeUnitCount where bytes[index] != expected[index] { return false }
        return bytes[literal.utf8CodeUnitCount] == 0
    }

    /// Packed into one buffer (`HTTPHeaders.Packer`) from libmicrohttpd's names and values with their lengths;
    /// strings are made only for the fields someone lists. The same fields as the connection's previous request are
    /// only compared with it as they arrive: they share its bytes and what inspecting them found. Other fields are
    /// inspected once packed (`HeadFieldProblems`, for `RequestCheck`).
    static func readHeaders(of connection: OpaquePointer, into context: RequestContext) {
        let headers = HTTPHeaders(
            packing: { packer in
                _ = withUnsafeMutablePointer(to: &packer) { pointer in
                    MHD_get_connection_values_n(
                        connection,
                        .HEADER_KIND,
                        { cls, _, key, keySize, value, valueSize in
                            guard let cls, let key else { return .YES }
                            cls.assumingMemoryBound(to: HTTPHeaders.Packer.self).pointee.append(
                                name: UnsafeRawBufferPointer(start: key, count: keySize),
                                value: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
                            )
                            return .YES
                        },
                        pointer
                    )
                }
            },
            reusing: context.previousHeaders
        )
        if !headers.sharesBytes(with: context.previousHeaders) {
            var problems = HeadFieldProblems()
            headers.forEachField { name, value in problems.inspect(name: name, value: value) }
            context.previousProblems = problems
            context.previousHeaders = headers
        }
        context.headers = headers
        context.fieldProblems = context.previousProblems
    }
}
