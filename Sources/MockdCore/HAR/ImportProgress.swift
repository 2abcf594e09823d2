/// The progress line `mockd import-har` redraws on a terminal while it reads a HAR, and its throttle.
///
/// `importing app.har [=========>          ]  45%   90.1/200.0 MiB  12,345 entries  85.3 MiB/s`
public struct ImportProgress: Sendable {
    /// At most this many redraws per second.
    public static let maximumRate = 10.0

    private let start: Double
    private var lastDraw: Double?

    /// - Parameter start: When reading started, in seconds of a monotonic clock.
    public init(start: Double) {
        self.start = start
    }

    /// Whether to redraw at `now` (seconds of the same clock): the first time, then at most
    /// `maximumRate` times per second.
    public mutating func shouldDraw(at now: Double) -> Bool {
        if let lastDraw, now - lastDraw < 1 / Self.maximumRate { return false }
        lastDraw = now
        return true
    }

    /// Seconds since reading started.
    public func elapsed(at now: Double) -> Double { max(0, now - start) }

    /// The line for `progress` after `seconds` of reading `fileName` (no line feed, at most ~80 columns).
    public static func line(fileName: String, progress: HARStreamReader.Progress, seconds: Double) -> String {
        guard progress.totalBytes > 0 else {
            // A pipe: how much has come so far, without a share of an unknown whole.
            let rate = seconds > 0 ? mebibytes(progress.bytesRead) / seconds : 0
            return "importing \(shortName(fileName))  \(format(mebibytes(progress.bytesRead))) MiB read  "
                + "\(grouped(progress.entries)) entries  \(format(rate)) MiB/s"
        }
        let total = max(progress.totalBytes, progress.bytesRead)
        let fraction = total > 0 ? Double(progress.bytesRead) / Double(total) : 1
        let width = 20
        let filled = min(width, Int(fraction * Double(width)))
        let bar =
            String(repeating: "=", count: filled)
            + (filled < width ? ">" + String(repeating: " ", count: width - filled - 1) : "")
        let rate = seconds > 0 ? mebibytes(progress.bytesRead) / seconds : 0
        return "importing \(shortName(fileName)) [\(bar)] \(pad(String(Int(fraction * 100)), 3))%  "
            + "\(pad(format(mebibytes(progress.bytesRead)), 6))/\(format(mebibytes(total))) MiB  "
            + "\(grouped(progress.entries)) entries  \(format(rate)) MiB/s"
    }

    /// `12,345`.
    public static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return number < 0 ? "-" + result : result
    }

    /// At most 24 characters: the end of the name, which tells files apart best.
    static func shortName(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.count <= 24 ? name : "…" + name.suffix(23)
    }

    static func mebibytes(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }

    /// One decimal: `90.1`.
    static func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
