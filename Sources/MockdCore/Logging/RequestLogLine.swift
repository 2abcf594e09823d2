import Foundation

/// One answered request's log line: `GET /path?q=1 200 stub-id 0.42ms` — method, request-target as sent, status (or
/// `fault=NAME`), who answered, and the time from the head's arrival to the answer in ms with two decimals.
///
/// Kept as its parts so that a sink writing bytes (`StderrLogSink`) formats it straight into its buffer; `message`
/// is the same text as a string.
public struct RequestLogLine: Sendable {
    public let method: String
    public let target: String
    /// The status sent; `0` when none was (a fault, a `noResponse` hold).
    public let status: Int
    /// The fault carried out instead of a response (`Fault.rawValue`), shown as `fault=NAME` in place of the status.
    public let fault: String?
    /// The stub or override id, `upstream`, `control`, `refused` or `unmatched`.
    public let answeredBy: String
    public let elapsedMs: Double

    public init(method: String, target: String, status: Int, fault: String?, answeredBy: String, elapsedMs: Double) {
        self.method = method
        self.target = target
        self.status = status
        self.fault = fault
        self.answeredBy = answeredBy
        self.elapsedMs = elapsedMs
    }

    /// The line as text, without timestamp, level or newline.
    public var message: String {
        var bytes: [UInt8] = []
        append(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the line's bytes (without timestamp, level or newline) to `bytes`.
    public func append(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: method.utf8)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: target.utf8)
        bytes.append(UInt8(ascii: " "))
        if let fault {
            bytes.append(contentsOf: "fault=".utf8)
            bytes.append(contentsOf: fault.utf8)
        } else {
            RequestLogLine.appendDigits(status, width: 1, to: &bytes)
        }
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: answeredBy.utf8)
        bytes.append(UInt8(ascii: " "))
        RequestLogLine.appendTwoDecimals(elapsedMs, to: &bytes)
        bytes.append(contentsOf: "ms".utf8)
    }

    /// `value` with two decimals, as `String(format: "%.2f")` writes it, without Foundation's formatter (it was a
    /// sixth of the instructions of a logged request).
    public static func twoDecimals(_ value: Double) -> String {
        var bytes: [UInt8] = []
        appendTwoDecimals(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `twoDecimals(value)`'s bytes.
    static func appendTwoDecimals(_ value: Double, to bytes: inout [UInt8]) {
        let scaled = value * 100
        // Outside the plain range, or a tie after scaling that may not be one in the exact binary value printf
        // rounds: printf decides those.
        guard value.isFinite, value >= 0, value < 1e15, abs(scaled - scaled.rounded(.down) - 0.5) > 1e-9 else {
            bytes.append(contentsOf: String(format: "%.2f", value).utf8)
            return
        }
        let hundredths = Int(scaled.rounded())
        appendDigits(hundredths / 100, width: 1, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendDigits(hundredths % 100, width: 2, to: &bytes)
    }

    /// Appends non-negative `value` in decimal, zero-padded to at least `width` digits (a negative value as `0`s).
    static func appendDigits(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        var digits = 1
        var limit = 10
        while digits < 19, value >= limit {
            digits += 1
            limit &*= 10
        }
        let count = max(digits, width)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var rest = max(value, 0)
        var position = start + count - 1
        while rest > 0 {
            bytes[position] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            position -= 1
        }
    }
}
