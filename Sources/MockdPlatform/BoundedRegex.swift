#if canImport(_FoundationICU)
import _FoundationICU
import Glibc
#elseif canImport(Darwin)
import CDarwinICU
import Darwin
#endif

/// A regular expression (ICU syntax: the engine `NSRegularExpression` runs on, the same dialect and results) whose
/// every match runs on a budget, so no pattern can hold a worker thread that other sessions need.
///
/// Foundation's `NSRegularExpression` and Swift's `Regex` have no time limit, and patterns no shape check catches
/// (`[^/]*[^/]*[^/]*[^/]*x`, `\w*` six times, `a{0,1000}` three times) took 1–3 s per request on a value that almost
/// matches. ICU itself counts its backtracking steps; this calls ICU's C API (the toolchain's `_FoundationICU` on
/// Linux, the system's libicucore on macOS) with two bounds:
/// - **per match**: at most `stepLimit` × 10,000 steps (`uregex_setTimeLimit`), about 12 ms here, deterministic;
/// - **per request**: the request's matches together get `RegexBudget.requestMs` of this thread's CPU
///   time, checked between matches and every 10,000 steps within one (`uregex_setMatchCallback`). Engine requests
///   open a budget with `RegexBudget.startRequest()`; code that never does (an import) has the per-match bound only.
///
/// A match that runs out of budget is `.overBudget`: neither a match nor a non-match, for the caller to report.
/// Compiled once; safe to use from several threads at once (each use takes a matcher of its own from a small pool).
public final class BoundedRegex: @unchecked Sendable {
    /// What one match found.
    public enum Outcome: Sendable, Equatable {
        case match
        case noMatch
        /// The budget ran out first: whether it matches is unknown.
        case overBudget
    }

    /// Why a pattern does not compile: ICU's status name (`U_REGEX_MISMATCHED_PAREN`).
    public struct InvalidPattern: Error, Sendable {
        public let status: Int32
    }

    /// One match's bound in ICU time units of 10,000 backtracking steps: a million steps, about 12 ms on the
    /// 2-core machines this was measured on; the slowest ordinary pattern measured (`.*a.*b` failing on 1 KiB)
    /// needs 40.
    public static let stepLimit: Int32 = 100

    public let pattern: String
    /// The compiled pattern, cloned into `pool` for use; never matched itself.
    private let prototype: OpaquePointer
    private let pool = Mutex<[Matcher]>([])
    private static let poolLimit = 16

    /// - Throws: `InvalidPattern` when ICU cannot compile `pattern`.
    public init(_ pattern: String) throws(InvalidPattern) {
        // ICU refuses an empty pattern, which NSRegularExpression takes (matching the empty string).
        let units = Array((pattern.isEmpty ? "(?:)" : pattern).utf16)
        var status: Int32 = 0
        let compiled = ICU.open(units, &status)
        guard let compiled, status <= 0 else {
            if let compiled { ICU.close(compiled) }
            throw InvalidPattern(status: status)
        }
        self.pattern = pattern
        self.prototype = compiled
    }

    deinit {
        for matcher in pool.withLock({ $0 }) { ICU.close(matcher.pointer) }
        ICU.close(prototype)
    }

    /// Whether the whole of `text` matches (Java's `String.matches`, what WireMock uses).
    public func wholeMatch(_ text: String) -> Outcome { run(text, whole: true) }

    /// Whether the pattern matches somewhere in `text`.
    public func firstMatch(in text: String) -> Outcome { run(text, whole: false) }

    private func run(_ text: String, whole: Bool) -> Outcome {
        let budget = RegexBudget.current
        if budget.pointee.exhausted { return .overBudget }
        guard let matcher = take() else { return .overBudget }
        defer { give(matcher) }
        let units = Array(text.utf16)
        return units.withUnsafeBufferPointer { buffer in
            var status: Int32 = 0
            ICU.setText(matcher, buffer.baseAddress, Int32(buffer.count), &status)
            guard status <= 0 else { return .overBudget }
            budget.pointee.matchStarted = ThreadCPUClock.nanoseconds()
            let found = whole ? ICU.matches(matcher, &status) : ICU.find(matcher, &status)
            budget.pointee.spent += ThreadCPUClock.nanoseconds() &- budget.pointee.matchStarted
            if status == ICU.stoppedByCaller || budget.pointee.spent >= budget.pointee.limit {
                budget.pointee.exhausted = true
            }
            // A time-out (the per-match limit), the request's budget, or ICU's backtrack stack: nothing known.
            if status > 0 { return .overBudget }
            return found ? .match : .noMatch
        }
    }

    /// A matcher of this pattern with the per-match limit and the budget check set.
    private func take() -> OpaquePointer? {
        if let matcher = pool.withLock({ $0.popLast() }) { return matcher.pointer }
        var status: Int32 = 0
        guard let matcher = ICU.clone(prototype, &status), status <= 0 else { return nil }
        ICU.setTimeLimit(matcher, Self.stepLimit, &status)
        ICU.setMatchCallback(matcher, RegexBudget.stillWithinBudget, &status)
        return matcher
    }

    private func give(_ matcher: OpaquePointer) {
        let kept = pool.withLock { pool -> Bool in
            guard pool.count < Self.poolLimit else { return false }
            pool.append(Matcher(pointer: matcher))
            return true
        }
        if !kept { ICU.close(matcher) }
    }
}

/// An ICU matcher, used by one thread at a time (taken from the pool, then given back).
private struct Matcher: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The regular-expression budget of the request a thread is working on (see `BoundedRegex`).
public enum RegexBudget {
    /// CPU time all of one request's matches may take together, in ms: twice the slowest ordinary pattern measured
    /// (`.*a.*b` failing on 1 KiB, about 5 ms), while four sessions sending patterns that exhaust it kept another
    /// session's worst request near 0.1 s (`scripts/bench/isolation`).
    public static let requestMs = 10.0

    /// One thread's account.
    struct Account {
        var spent: UInt64 = 0
        var limit: UInt64 = .max
        var matchStarted: UInt64 = 0
        var exhausted = false
    }

    /// Starts the calling thread's account for a new request: `requestMs` of CPU time for its matches.
    public static func startRequest() {
        let account = current
        account.pointee = Account(limit: UInt64(requestMs * 1_000_000))
    }

    /// Whether the calling thread's request ran out of budget (a match said `.overBudget` for lack of it).
    public static var isExhausted: Bool { current.pointee.exhausted }

    /// The calling thread's account, made on first use (no limit until `startRequest`).
    static var current: UnsafeMutablePointer<Account> {
        if let existing = ThreadSlot.regexBudget.value { return existing.assumingMemoryBound(to: Account.self) }
        let account = UnsafeMutablePointer<Account>.allocate(capacity: 1)
        account.initialize(to: Account())
        ThreadSlot.regexBudget.set(account, key: key)
        return account
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            ThreadSlot.regexBudget.clear()
            #if canImport(Glibc)
            guard let pointer else { return }
            #endif
            pointer.assumingMemoryBound(to: Account.self).deallocate()
        }
        return key
    }()

    /// ICU's callback every 10,000 steps of a match: `false` (stop) once the request's CPU time is spent.
    static let stillWithinBudget: @convention(c) (UnsafeRawPointer?, Int32) -> Int8 = { _, _ in
        let account = current
        let running = ThreadCPUClock.nanoseconds() &- account.pointee.matchStarted
        return account.pointee.spent &+ running < account.pointee.limit ? 1 : 0
    }
}

/// The calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`, on Linux and macOS alike): what a match cost this
/// thread, whatever else the machine was doing meanwhile.
enum ThreadCPUClock {
    static func nanoseconds() -> UInt64 {
        var time = timespec()
        _ = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}

/// ICU's regular-expression calls, one each, the same shape on both platforms: statuses as `Int32` (≤ 0 success).
private enum ICU {
    /// `U_REGEX_STOPPED_BY_CALLER`: the match callback said stop.
    static let stoppedByCaller: Int32 = 66323

    #if canImport(_FoundationICU)
    static func open(_ pattern: [UInt16], _ status: inout Int32) -> OpaquePointer? {
        var code = U_ZERO_ERROR
        defer { status = code.rawValue }
        return swift_uregex_open(pattern, Int32(pattern.count), 0, nil, &code)
    }

    static func clone(_ regex: OpaquePointer, _ status: inout Int32) -> OpaquePointer? {
        var code = U_ZERO_ERROR
        defer { status = code.rawValue }
        return swift_uregex_clone(regex, &code)
    }

    static func close(_ regex: OpaquePointer) { swift_uregex_close(regex) }

    static func setText(_ regex: OpaquePointer, _ text: UnsafePointer<UInt16>?, _ count: Int32, _ status: inout Int32) {
        var code = U_ZERO_ERROR
        defer { status = code.rawValue }
        // An empty text still needs a valid pointer.
        withUnsafePointer(to: UInt16(0)) { empty in swift_uregex_setText(regex, text ?? empty, count, &code) }
    }

    static func matches(_ regex: OpaquePointer, _ status: inout Int32) -> Bool {
        var code = U_ZERO_ERROR
        defer { status = code.rawValue }
        return swift_uregex_matches(regex, 0, &code) != 0
    }

    static func find(_ regex: OpaquePointer, _ status: inout Int32) -> Bool {
        var code = U_ZERO_ERROR
        defer { status = code.rawValue }
        return swift_uregex_find(regex, 0, &code) != 0
    }

    static func setTimeLimit(_ regex: OpaquePointer, _ limit: Int32, _ status: inout Int32) {
        var code = U_ZERO_ERROR
        defer { status = code.rawValue }
        swift_uregex_setTimeLimit(regex, limit, &code)
    }

    static func setMatchCallback(
        _ regex: OpaquePointer,
        _ callback: @convention(c) (UnsafeRawPointer?, Int32) -> Int8,
        _ status: inout Int32
    ) {
        var code = U_ZERO_ERROR
        defer { status = code.rawValue }
        swift_uregex_setMatchCallback(regex, callback, nil, &code)
    }
    #elseif canImport(Darwin)
    static func open(_ pattern: [UInt16], _ status: inout Int32) -> OpaquePointer? {
        uregex_open(pattern, Int32(pattern.count), 0, nil, &status)
    }

    static func clone(_ regex: OpaquePointer, _ status: inout Int32) -> OpaquePointer? {
        uregex_clone(regex, &status)
    }

    static func close(_ regex: OpaquePointer) { uregex_close(regex) }

    static func setText(_ regex: OpaquePointer, _ text: UnsafePointer<UInt16>?, _ count: Int32, _ status: inout Int32) {
        withUnsafePointer(to: UInt16(0)) { empty in uregex_setText(regex, text ?? empty, count, &status) }
    }

    static func matches(_ regex: OpaquePointer, _ status: inout Int32) -> Bool {
        uregex_matches(regex, 0, &status) != 0
    }

    static func find(_ regex: OpaquePointer, _ status: inout Int32) -> Bool {
        uregex_find(regex, 0, &status) != 0
    }

    static func setTimeLimit(_ regex: OpaquePointer, _ limit: Int32, _ status: inout Int32) {
        uregex_setTimeLimit(regex, limit, &status)
    }

    static func setMatchCallback(
        _ regex: OpaquePointer,
        _ callback: @convention(c) (UnsafeRawPointer?, Int32) -> Int8,
        _ status: inout Int32
    ) {
        uregex_setMatchCallback(regex, callback, nil, &status)
    }
    #endif
}
