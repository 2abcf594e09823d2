import Foundation

/// Payment card numbers (PANs) in recorded text: a recording of a payment flow must never land in git with one
/// (PCI DSS 3.4: a PAN is rendered unreadable wherever it is stored; at most the last four digits may stay).
///
/// A PAN here is 13–19 digits, written together or in groups separated by single spaces or dashes (one kind per
/// number), that passes the Luhn check (ISO/IEC 7812-1) and starts with an issuer prefix of a card scheme
/// (Visa 4; Mastercard 51–55, 2221–2720; American Express 34, 37; Discover 6011, 644–649, 65; Diners 300–305,
/// 36, 38; JCB 3528–3589; UnionPay 62; Maestro 50, 56–69) at a length that scheme issues. The prefix check keeps
/// 13-digit millisecond timestamps and 19-digit snowflake ids (which start with 1) out.
///
/// Masked, not replaced by a placeholder: every digit but the last four becomes `*`, separators stay
/// (`4111 1111 1111 1111` → `**** **** **** 1111`), so an app that shows "card ending 1111" still does.
enum CardNumbers {
    private static let candidate = try! NSRegularExpression(pattern: #"(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])"#)

    /// The UTF-16 ranges of the card numbers in `text`.
    static func ranges(in text: String) -> [NSRange] {
        // Cheap refusal first: no run of 13 digits (separators allowed) means no card.
        guard text.utf8.count >= 13, hasThirteenDigitRun(text.utf8) else { return [] }
        let nsText = text as NSString
        return candidate.matches(in: text, range: NSRange(location: 0, length: nsText.length)).map(\.range).filter {
            isCardNumber(nsText.substring(with: $0))
        }
    }

    /// Whether `bytes` hold 13 ASCII digits in a row, each pair apart by at most one space or dash: what every match
    /// of `candidate` holds, found in one pass without the regular expression.
    static func hasThirteenDigitRun(_ bytes: String.UTF8View) -> Bool {
        var digits = 0
        var afterSeparator = false
        for byte in bytes {
            if byte >= 0x30, byte <= 0x39 {
                digits += 1
                if digits >= 13 { return true }
                afterSeparator = false
            } else if byte == 0x20 || byte == 0x2D, digits > 0, !afterSeparator {
                afterSeparator = true
            } else {
                digits = 0
                afterSeparator = false
            }
        }
        return false
    }

    /// Whether `text` (digits with optional single-space or single-dash separators) is a card number.
    static func isCardNumber(_ text: String) -> Bool {
        let separators = Set(text.filter { $0 == " " || $0 == "-" })
        guard separators.count <= 1 else { return false }
        let digits = text.compactMap(\.wholeNumberValue)
        guard (13...19).contains(digits.count), luhnValid(digits) else { return false }
        return issues(digits)
    }

    /// The Luhn (mod 10) check digit test.
    static func luhnValid(_ digits: [Int]) -> Bool {
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() {
            if offset % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return sum % 10 == 0
    }

    /// Whether a scheme issues numbers with this prefix at this length.
    private static func issues(_ digits: [Int]) -> Bool {
        func prefix(_ count: Int) -> Int { digits.prefix(count).reduce(0) { $0 * 10 + $1 } }
        let length = digits.count
        switch digits[0] {
        case 4: return [13, 16, 19].contains(length)
        case 5:
            return (51...55).contains(prefix(2)) ? length == 16 : prefix(2) == 50 || prefix(2) >= 56
        case 2: return (2221...2720).contains(prefix(4)) && length == 16
        case 3:
            if [34, 37].contains(prefix(2)) { return length == 15 }
            if (300...305).contains(prefix(3)) || [36, 38].contains(prefix(2)) { return (14...19).contains(length) }
            return (3528...3589).contains(prefix(4)) && (16...19).contains(length)
        case 6:
            if prefix(4) == 6011 || (644...649).contains(prefix(3)) || prefix(2) == 65 {
                return (16...19).contains(length)
            }
            return prefix(2) == 62 ? (16...19).contains(length) : (12...19).contains(length)
        default:
            return false
        }
    }

    /// `text` with every digit but the last four replaced by `*`.
    static func masked(_ text: String) -> String {
        let total = text.filter(\.isNumber).count
        var seen = 0
        return String(
            text.map { character -> Character in
                guard character.isNumber else { return character }
                seen += 1
                return seen <= total - 4 ? "*" : character
            }
        )
    }
}
