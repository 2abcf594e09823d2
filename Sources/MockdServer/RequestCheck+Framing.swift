import CMicroHTTPD
import Foundation
import MockdCore

extension RequestCheck {
    /// The answer for a head whose fields or framing a front proxy could read differently (request smuggling),
    /// or `nil` when `context.fieldProblems` found nothing wrong after all (a lone `Transfer-Encoding: chunked`).
    ///
    /// - 400 for a field name with whitespace (before the colon included, RFC 9112 §5.1), a control byte or a byte
    ///   outside ASCII (RFC 9110 §5.1: a name is a token); an obs-fold line of a framing field that libmicrohttpd
    ///   0.9.75 folded into its name (§5.2); a CR in a value (RFC 9110 §5.5); more than one `Host` (§3.2);
    ///   `chunked` that is not the final transfer coding or is applied twice, or an empty `Transfer-Encoding`
    ///   (§6.1, §6.3).
    /// - 501 for a transfer coding mockd does not decode (`gzip, chunked`: §6.1).
    ///
    /// Each is answered before the body is read, with `Connection: close`.
    static func framingRejection(of context: RequestContext) -> FixedAnswer? {
        let problems = context.fieldProblems
        if problems.flags & HeadFieldProblems.nameNotToken != 0 {
            let name = context.headers.first { !isPlainName($0.name) }?.name ?? ""
            return .badRequest(
                "field name '\(printable(name))' is not a token: whitespace before the colon or inside a name is "
                    + "not allowed (RFC 9112 §5.1)"
            )
        }
        if problems.flags & HeadFieldProblems.foldedIntoFramingName != 0, legacyHeadParser,
            let name = context.headers.first(where: { isFoldedFramingName($0.name) })?.name
        {
            return .badRequest(
                "field name '\(printable(name))': a folded header line (obs-fold) of a framing field is not allowed "
                    + "in a request (RFC 9112 §5.2)"
            )
        }
        if problems.hostFields > 1 { return .badRequest("more than one Host field (RFC 9112 §3.2)") }
        if problems.flags & HeadFieldProblems.bareCR != 0 {
            return .badRequest("a field value contains a bare CR (RFC 9110 §5.5, RFC 9112 §2.2)")
        }
        guard problems.transferEncodingFields > 0 else { return nil }
        return transferCodingRejection(context.headers.values(named: "transfer-encoding"))
    }

    /// RFC 9112 §6.1 and §6.3 on the `Transfer-Encoding` field values, in order (several fields form one list).
    static func transferCodingRejection(_ values: [String]) -> FixedAnswer? {
        let codings = values.flatMap { $0.split(separator: ",") }.map { coding in
            // A coding's parameters (`;q=…`) do not change its name.
            coding.split(separator: ";", maxSplits: 1).first.map(String.init)?.trimmingCharacters(
                in: CharacterSet(charactersIn: " \t")
            ).lowercased() ?? ""
        }.filter { !$0.isEmpty }
        if codings == ["chunked"] { return nil }
        guard let last = codings.last else { return .badRequest("Transfer-Encoding is empty (RFC 9112 §6.1)") }
        if codings.filter({ $0 == "chunked" }).count > 1 {
            return .badRequest("chunked is applied more than once (RFC 9112 §6.1)")
        }
        if last != "chunked" {
            let unknown = codings.first { $0 != "chunked" } ?? last
            return .badRequest(
                "transfer coding '\(printable(unknown))' is not supported, and chunked must be the final coding "
                    + "(RFC 9112 §6.3)"
            )
        }
        let unknown = codings.first { $0 != "chunked" } ?? ""
        return .notImplemented(
            "transfer coding '\(printable(unknown))' is not supported; send the body with chunked alone (RFC 9112 §6.1)"
        )
    }

    /// Whether the running libmicrohttpd reads heads with its parser from before 1.0, which appends an obs-fold line
    /// to the field's name (`HeadFieldProblems.foldedIntoFramingName`).
    static let legacyHeadParser = CMicroHTTPD_hasLegacyHeadParser() != 0

    private static func isFoldedFramingName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return (lowered.hasPrefix("transfer-encoding") && lowered.count > 17)
            || (lowered.hasPrefix("content-length") && lowered.count > 14)
    }

    /// What `HeadFieldProblems` accepts in a name: printable ASCII other than space.
    private static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// `text` with control bytes shown as `\xNN`, for a one-line message.
    private static func printable(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                shown += String(format: "\\x%02X", scalar.value)
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }
}
