/// The one gate between a request-target and the upstream: `mockd record`, `--on-miss proxy` and `mockd refresh`
/// send a target upstream only as the path and query of the configured origin, never as text appended to it.
///
/// libmicrohttpd accepts a request line whose target does not start with `/`; appended to the origin,
/// `@127.0.0.1:9000/x` turned `https://api.example.com` into a URL with userinfo `api.example.com` and another host.
/// Refused (origin-form only, RFC 9112 §3.2.1; RFC 3986 §3.2 for what a parser reads as an authority):
/// - a target that does not start with `/`: `@host/x`, `host:port/x`, `:port/x`, `%40host/x`, `*`, `?q`, `#f`,
///   absolute-form `http://other/x` (a reverse proxy keeps its own upstream), `\\host`, `[::1]:80/x`;
/// - one that starts with `//` (a network-path reference: another host to any URL parser resolving it) or with `/\`
///   or `\`, which WHATWG parsers read as `//`;
/// - a space, tab or other control character, a backslash, a `#` (a fragment is never sent, so what went upstream
///   would not be what the client asked for) or a byte outside ASCII anywhere in it.
///
/// Every other byte passes as the client sent it (`%2F`, `@` or `:` inside the path, `|` in a query): after the first
/// `/` nothing can change the authority. The upstream client sets the path and query as URL parts
/// (`UpstreamClient`), and the recorded URL is built here from the same checked parts.
public enum UpstreamTarget {
    /// Why a target is not sent: `target` as received and one line saying what is wrong.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public let target: String
        public let reason: String

        public var description: String {
            "request-target '\(Self.printable(target))' \(reason); mockd sends only /path?query to its upstream"
        }

        /// The target with control characters shown as `\t`, `\u{…}`, so the line stays one line.
        static func printable(_ target: String) -> String {
            String(
                target.unicodeScalars.map { scalar -> String in
                    switch scalar {
                    case "\t": return "\\t"
                    case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                        return "\\u{\(String(scalar.value, radix: 16))}"
                    default: return String(scalar)
                    }
                }.joined().prefix(200)
            )
        }
    }

    /// The checked parts of a target: the path (starting with one `/`) and the query without its `?` (`nil` when the
    /// target has no `?`).
    public struct Parts: Sendable, Equatable {
        public let path: Substring
        public let query: Substring?

        /// `path` and `?query` again.
        public var target: String { query.map { "\(path)?\($0)" } ?? String(path) }
    }

    /// Checks `target` and splits it at its first `?`.
    /// - Throws: `Refusal` naming what is wrong (see the type's documentation).
    public static func parts(of target: String) throws(Refusal) -> Parts {
        let bytes = target.utf8
        guard bytes.first == UInt8(ascii: "/") else {
            throw Refusal(
                target: target,
                reason: target.isEmpty
                    ? "is empty" : "does not start with '/' (a URL parser would read it as another host or scheme)"
            )
        }
        if bytes.count > 1 {
            let second = bytes[bytes.index(after: bytes.startIndex)]
            if second == UInt8(ascii: "/") || second == UInt8(ascii: "\\") {
                throw Refusal(
                    target: target,
                    reason:
                        "starts with '/\(Character(Unicode.Scalar(second)))', which a URL parser reads as another host"
                )
            }
        }
        for byte in bytes {
            switch byte {
            case 0..<0x21, 0x7F:
                throw Refusal(target: target, reason: "holds a space or control character")
            case 0x80...:
                throw Refusal(target: target, reason: "holds a byte outside ASCII (not percent-encoded)")
            case UInt8(ascii: "\\"):
                throw Refusal(target: target, reason: "holds a backslash, which some URL parsers read as '/'")
            case UInt8(ascii: "#"):
                throw Refusal(target: target, reason: "holds '#': a fragment is never sent upstream")
            default:
                continue
            }
        }
        guard let question = target.firstIndex(of: "?") else { return Parts(path: target[...], query: nil) }
        return Parts(path: target[..<question], query: target[target.index(after: question)...])
    }

    /// The absolute URL of `target` on `origin` (`https://api.example.com`, as `--upstream` normalised it): what is
    /// recorded in a HAR and named in messages.
    /// - Throws: `Refusal` when `target` is not a path and query (see `parts(of:)`).
    public static func url(origin: String, target: String) throws(Refusal) -> String {
        origin + (try parts(of: target)).target
    }
}
