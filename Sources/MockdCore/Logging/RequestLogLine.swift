import Foundation

/// One answered request's log line: `GET /path?q=1 200 stub-id 0.42ms` — method, request-target as sent, status (or
/// `fault=NAME`), who answered, and the time from the head's arrival to the answer in ms with two decimals. Control
/// bytes of the target and the id are written as `\xNN`.
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
    public var answeredBy: String {
        answeredByBytes.map { String(decoding: $0, as: UTF8.self) } ?? answeredByText
    }
    public let elapsedMs: Double
    private let answeredByText: String
    /// A stub's id as the bytes it keeps (`Stub.withID`), written without making a string; valid only while the line
    /// is written (`Logger.request` borrows the line, and a sink reads it then).
    nonisolated(unsafe) private let answeredByBytes: UnsafeRawBufferPointer?

    public init(method: String, target: String, status: Int, fault: String?, answeredBy: String, elapsedMs: Double) {
        self.method = method
        self.target = target
        self.status = status
        self.fault = fault
        self.answeredByText = answeredBy
        self.answeredByBytes = nil
        self.elapsedMs = elapsedMs
    }

    /// The line of a request a stub answered, `stubID` being the stub's id bytes (`Stub.withID`): pass it to
    /// `Logger.request` within `withID`'s call.
    public init(method: String, target: String, status: Int, stubID: UnsafeRawBufferPointer, elapsedMs: Double) {
        self.method = method
        self.target = target
        self.status = status
        self.fault = nil
        self.answeredByText = ""
        self.answeredByBytes = stubID
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
        bytes.appendWritten { write(to: &$0) }
    }

    /// Writes the line's bytes (without timestamp, level or newline).
    func write(to writer: inout ByteWriter) {
        writer.write(method)
        writer.write(UInt8(ascii: " "))
        writer.writeEscapingControls(target)
        writer.write(UInt8(ascii: " "))
        if let fault {
            writer.write("fault=" as StaticString)
            writer.write(fault)
        } else {
            writer.writeDigits(status, width: 1)
        }
        writer.write(UInt8(ascii: " "))
        if let answeredByBytes {
            writer.writeEscapingControls(answeredByBytes.utf8)
        } else {
            writer.writeEscapingControls(answeredByText)
        }
        writer.write(UInt8(ascii: " "))
        RequestLogLine.writeTwoDecimals(elapsedMs, to: &writer)
        writer.write("ms" as StaticString)
    }

    /// `value` with two decimals, as `String(format: "%.2f")` writes it, without Foundation's formatter (it was a
    /// sixth of the instructions of a logged request).
    public static func twoDecimals(_ value: Double) -> String {
        var bytes: [UInt8] = []
        bytes.appendWritten { writeTwoDecimals(value, to: &$0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `twoDecimals(value)`'s bytes.
    static func writeTwoDecimals(_ value: Double, to writer: inout ByteWriter) {
        let scaled = value * 100
        // Outside the plain range, or a tie after scaling that may not be one in the exact binary value printf
        // rounds: printf decides those.
        guard value.isFinite, value >= 0, value < 1e15, abs(scaled - scaled.rounded(.down) - 0.5) > 1e-9 else {
            writer.write(String(format: "%.2f", value))
            return
        }
        let hundredths = Int(scaled.rounded())
        writer.writeDigits(hundredths / 100, width: 1)
        writer.write(UInt8(ascii: "."))
        writer.writeDigits(hundredths % 100, width: 2)
    }
}
