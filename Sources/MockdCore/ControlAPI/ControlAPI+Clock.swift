import Foundation
import MockdControl

/// `/__mockd/clock`: the session's virtual clock (`SessionClock`).
extension ControlAPI {
    /// `GET /__mockd/clock`: `offsetMs` is how far the session's clock is ahead of real time (0 = real time).
    func readClock(_ call: Call, _: NoBody) -> VirtualClock {
        clockAnswer(call.session)
    }

    /// `POST /__mockd/clock` with `{"advanceMs": N}` (N ≥ 0 ms, added to the clock) or `{"set": ISO-8601}`
    /// (RFC 3339 with a zone, fractional seconds allowed): the clock as `GET` shows it, 400 `invalid_clock` for any
    /// other body. The clock runs on with real time from there.
    func moveClock(_ call: Call, _ body: ClockChange) throws -> VirtualClock {
        guard ControlAPI.bodyKeys(call.request.body).count == 1 else {
            throw Failure(.invalidClock, ClockChange.usage)
        }
        if let milliseconds = body.advanceMs {
            guard (0...1_000_000_000).contains(milliseconds) else {
                throw Failure(.invalidClock, ClockChange.problem(at: ["advanceMs"])!)
            }
            call.session.moveClock { $0.advance(byMs: Int64(milliseconds)) }
        } else if let text = body.set {
            guard let date = ControlAPI.iso8601(text) else {
                throw Failure(
                    .invalidClock,
                    "set must be an ISO-8601 date and time with a zone, e.g. 2026-12-01T09:00:00Z; got '\(text)'"
                )
            }
            call.session.moveClock { $0.set(to: date) }
        } else {
            throw Failure(.invalidClock, ClockChange.usage)
        }
        return clockAnswer(call.session)
    }

    private func clockAnswer(_ session: Session) -> VirtualClock {
        let clock = session.clock
        let now = clock.date()
        return VirtualClock(
            session: session.id,
            now: DateFormats.rfc3339Milliseconds(now),
            epochMs: Int64((now.timeIntervalSince1970 * 1000).rounded()),
            offsetMs: clock.offsetMs
        )
    }

    /// An RFC 3339 date-time with a zone (`Z` or `±hh:mm`), with or without fractional seconds, in the years
    /// 1970–9999; a field out of range (February 30th, hour 24, offset +99:00) is refused, not rolled over.
    static func iso8601(_ text: String) -> Date? {
        let pattern =
            #"^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,9})?(Z|[+-]([0-9]{2}):([0-9]{2}))$"#
        guard let match = text.range(of: pattern, options: .regularExpression), match == text.startIndex..<text.endIndex
        else { return nil }
        let digits = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        let (year, month, day, hour, minute, second) = (
            digits[0], digits[1], digits[2], digits[3], digits[4], digits[5]
        )
        guard (1970...9999).contains(year), (1...12).contains(month), (0...23).contains(hour),
            (0...59).contains(minute),
            (0...59).contains(second)
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return nil }
        if !text.hasSuffix("Z") {
            let zone = text.suffix(6)
            guard let zoneHours = Int(zone.dropFirst().prefix(2)), let zoneMinutes = Int(zone.suffix(2)),
                zoneHours <= 23, zoneMinutes <= 59
            else { return nil }
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
