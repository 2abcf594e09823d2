public import Foundation

/// What counts as a secret or as personal data, shared by `mockd import-har` (which replaces it with a
/// placeholder) and `mockd lint` (which reports what is left).
///
/// Two kinds of evidence: a *name* (a header, query parameter, JSON or form field called `password`,
/// `access_token`, `X-Api-Key`…) and a *value shape* (a JWT, `Bearer …`, a provider key like `AKIA…`, a
/// private key block, an e-mail address, an E.164 phone number). Each maps to the placeholder it becomes;
/// placeholders render to `FakeValues`.
public enum SecretPatterns {
    /// The placeholder for a field, parameter or JSON key named `name`, or `nil` when the name says nothing.
    ///
    /// Names are compared without case, `_`, `-` and `.`: `access_token`, `accessToken` and `Access-Token`
    /// are one name.
    public static func placeholder(forField name: String) -> String? {
        let folded = fold(name)
        if folded.isEmpty { return nil }
        if folded.containsASCII("password") || ["passwd", "pwd", "pass", "passcode", "pin"].contains(folded) {
            return "password"
        }
        if folded.containsASCII("refreshtoken") { return "refreshToken" }
        if folded.containsASCII("accesstoken") { return "accessToken" }
        if folded.hasSuffix("token") || folded == "authorization" || folded == "auth" || folded == "bearer"
            || folded == "sessionid" || folded == "jsessionid" || folded == "phpsessid"
        {
            return "token"
        }
        if folded.hasSuffix("apikey") || folded == "accesskey" || folded == "accesskeyid" || folded == "subscriptionkey"
        {
            return "apiKey"
        }
        if folded.hasSuffix("secret") || folded == "privatekey" || folded == "secretkey" || folded == "secretaccesskey"
        {
            return "secret"
        }
        if folded == "signature" || folded == "sig" || folded == "xamzsignature" { return "signature" }
        if phoneFieldNames.contains(folded) { return "phone" }
        if folded == "email" || folded == "emailaddress" || folded == "mail" { return "email" }
        return nil
    }

    /// Query parameters that carry credentials although their name alone would not say so in a JSON body.
    public static func placeholder(forQueryParameter name: String) -> String? {
        let folded = fold(name)
        if folded == "key" { return "apiKey" }
        return placeholder(forField: name)
    }

    /// The placeholder for a whole header value, by header name; `Cookie` and `Set-Cookie` are handled
    /// pair by pair instead (see `Redactor`).
    public static func placeholder(forHeader name: String) -> String? {
        let lower = name.lowercased()
        switch lower {
        case "authorization", "proxy-authorization": return "token"
        case "x-api-key", "api-key", "x-apikey", "apikey", "x-goog-api-key", "ocp-apim-subscription-key":
            return "apiKey"
        case "x-amz-security-token": return "token"
        default: break
        }
        let folded = fold(lower)
        if folded.hasSuffix("token") || folded.hasSuffix("sessionid") { return "token" }
        if folded.hasSuffix("apikey") { return "apiKey" }
        if folded.hasSuffix("secret") || folded.hasSuffix("password") { return "secret" }
        return nil
    }

    static let phoneFieldNames: Set<String> = [
        "phone", "phonenumber", "mobile", "mobilenumber", "mobilephone", "tel", "telephone", "msisdn", "cellphone",
        "phoneno",
    ]

    /// `accessToken`, `access_token`, `Access-Token` → `accesstoken`.
    static func fold(_ name: String) -> String {
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII (nearly every name): lower-cased and filtered byte by byte, as below but without Unicode tables.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(name.utf8.count)
            for byte in name.utf8
            where byte != UInt8(ascii: "_") && byte != UInt8(ascii: "-") && byte != UInt8(ascii: ".") {
                bytes.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(
            String.UnicodeScalarView(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" && $0 != "." })
        )
    }

    /// A value shape that gives a secret away wherever it appears.
    public struct ValueShape: Sendable {
        /// Shown in reports and lint output, e.g. `JWT`.
        public let what: String
        public let placeholder: String
        /// Every match contains one of these byte strings, checked with `memchr` before the regular expression runs.
        let prefilters: [[UInt8]]
        let regex: NSRegularExpression
        /// The capture group to replace (0: the whole match).
        let group: Int
    }

    /// Every value shape, most specific first (a JWT inside `Bearer …` is reported as the JWT).
    public static let shapes: [ValueShape] = [
        shape(
            "private key",
            "secret",
            "-----BEGIN",
            #"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"#
        ),
        shape("JWT", "jwt", "eyJ", #"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"#),
        shape("bearer token", "token", "earer ", #"\b[Bb]earer\s+([A-Za-z0-9._~+/-]{12,}=*)"#, group: 1),
        shape("AWS access key id", "apiKey", "AKIA", #"\bAKIA[0-9A-Z]{16}\b"#),
        shape("Google API key", "apiKey", "AIza", #"\bAIza[0-9A-Za-z_-]{35}\b"#),
        shape("GitHub token", "token", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], #"\bgh[pousr]_[A-Za-z0-9]{36,}\b"#),
        shape("Slack token", "token", "xox", #"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"#),
        shape(
            "Stripe key",
            "apiKey",
            ["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
            #"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b"#
        ),
        shape(
            "e-mail address",
            "email",
            "@",
            #"(?<![A-Za-z0-9._%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b"#
        ),
    ]

    private static func shape(
        _ what: String,
        _ placeholder: String,
        _ prefilter: String,
        _ pattern: String,
        group: Int = 0
    ) -> ValueShape {
        shape(what, placeholder, [prefilter], pattern, group: group)
    }

    private static func shape(
        _ what: String,
        _ placeholder: String,
        _ prefilters: [String],
        _ pattern: String,
        group: Int = 0
    ) -> ValueShape {
        // The patterns are constants; a failure here is a programming error caught by the first test run.
        ValueShape(
            what: what,
            placeholder: placeholder,
            prefilters: prefilters.map { Array($0.utf8) },
            regex: try! NSRegularExpression(pattern: pattern),
            group: group
        )
    }

    /// One secret found in a text: where, what, and its placeholder.
    public struct Finding: Sendable, Equatable {
        /// UTF-16 range in the text searched (as `NSRegularExpression` reports it).
        public let range: NSRange
        public let what: String
        public let placeholder: String
        /// What the value becomes: `{{placeholder}}`, or for a card number the number masked but its last four
        /// digits (`CardNumbers`).
        public var replacement: String

        init(range: NSRange, what: String, placeholder: String, replacement: String? = nil) {
            self.range = range
            self.what = what
            self.placeholder = placeholder
            self.replacement = replacement ?? "{{\(placeholder)}}"
        }
    }

    /// Every value-shaped secret in `text`, without overlaps, in text order.
    public static func findings(in text: String) -> [Finding] {
        var utf8 = text
        let candidates = utf8.withUTF8 { bytes in
            shapes.filter { shape in shape.prefilters.contains { ByteSearch.contains($0, in: bytes) } }
        }
        var found: [Finding] = []
        let whole = NSRange(text.startIndex..., in: text)
        let nsText = text as NSString
        for shape in candidates {
            for match in shape.regex.matches(in: text, range: whole) {
                let range = match.range(at: shape.group)
                guard range.location != NSNotFound, range.length > 0 else { continue }
                if found.contains(where: { NSIntersectionRange($0.range, range).length > 0 }) { continue }
                let value = nsText.substring(with: range)
                if shape.placeholder == "email", !isPersonalEmail(value) { continue }
                if isPlaceholderOrFake(value) { continue }
                found.append(Finding(range: range, what: shape.what, placeholder: shape.placeholder))
            }
        }
        for range in CardNumbers.ranges(in: text)
        where !found.contains(where: { NSIntersectionRange($0.range, range).length > 0 }) {
            let masked = CardNumbers.masked(nsText.substring(with: range))
            found.append(Finding(range: range, what: "card number", placeholder: "card", replacement: masked))
        }
        return found.sorted { $0.range.location < $1.range.location }
    }

    /// `text` with every value-shaped secret replaced by `{{placeholder}}`, and what was replaced; a finding for
    /// which `kept` holds stays as it is (and is not listed).
    public static func redacted(
        _ text: String,
        keeping kept: (Finding) -> Bool = { _ in false }
    ) -> (text: String, findings: [Finding]) {
        let findings = findings(in: text).filter { !kept($0) }
        guard !findings.isEmpty else { return (text, []) }
        let output = NSMutableString(string: text)
        for finding in findings.reversed() {
            output.replaceCharacters(in: finding.range, with: finding.replacement)
        }
        return (output as String, findings)
    }

    /// Whether a JSON string value or form value is a phone number: E.164 (`+15555550100`) anywhere, or
    /// 7–15 digits with common separators under a phone-like name.
    public static func isPhoneNumber(_ value: String, fieldName: String?) -> Bool {
        // Only ASCII bytes are allowed, so counting ASCII digits counts every decimal digit.
        var digits = 0
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "+"), UInt8(ascii: " "), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "."),
                UInt8(ascii: "-"), UInt8(ascii: "/"):
                break
            default: return false
            }
        }
        guard (7...15).contains(digits) else { return false }
        if isFictionalPhoneNumber(value) { return false }
        if let fieldName, phoneFieldNames.contains(fold(fieldName)) { return true }
        return value.hasPrefix("+") && !value.contains(" ") && digits >= 8 && value.dropFirst().allSatisfy(\.isNumber)
            && value.dropFirst().first != "0"
    }

    /// Numbers reserved for fiction, like example domains for e-mail: North American 555-0100…0199 (any area
    /// code) and the UK's Ofcom drama ranges (07700 900xxx, 020 7946 0xxx).
    static func isFictionalPhoneNumber(_ value: String) -> Bool {
        var digits = String(value.unicodeScalars.filter { CharacterSet.decimalDigits.contains($0) }.map(Character.init))
        if digits.count == 11, digits.hasPrefix("1") { digits.removeFirst() }
        if digits.count == 10, digits.dropFirst(3).hasPrefix("55501") { return true }
        if digits.hasPrefix("44") { digits = "0" + digits.dropFirst(2) }
        return digits.hasPrefix("07700900") || digits.hasPrefix("02079460")
    }

    /// Reserved example domains (RFC 2606, RFC 6761) and file names that look like addresses
    /// (`logo@2x.png`) are not personal data.
    static func isPersonalEmail(_ address: String) -> Bool {
        guard let at = address.lastIndex(of: "@") else { return false }
        let local = address[..<at].lowercased()
        let domain = address[address.index(after: at)...].lowercased()
        // SSH logins (`git@github.com:org/repo.git`) and no-reply senders name no person.
        if ["git", "noreply", "no-reply", "donotreply", "do-not-reply", "mailer-daemon"].contains(local) {
            return false
        }
        if domain.hasSuffix("users.noreply.github.com") { return false }
        let reserved = ["example.com", "example.org", "example.net", "example", "test", "invalid", "localhost"]
        if reserved.contains(where: { domain == $0 || domain.hasSuffix("." + $0) }) { return false }
        let tld = domain.split(separator: ".").last.map(String.init) ?? ""
        let fileExtensions: Set<String> = [
            "png", "jpg", "jpeg", "gif", "svg", "webp", "avif", "ico", "js", "mjs", "css", "json", "html", "htm",
            "woff", "woff2", "ttf",
            "map", "txt", "xml", "pdf", "mp4", "webm",
        ]
        return !fileExtensions.contains(tld)
    }

    /// Placeholders, the fake values they render to and values spelt `mockd-…` (the convention for
    /// hand-written demo values) are never secrets.
    static func isPlaceholderOrFake(_ value: String) -> Bool {
        (value.hasPrefix("{{") && value.hasSuffix("}}")) || value.hasPrefix("mockd-")
            || FakeValues.values.values.contains(value)
    }
}
