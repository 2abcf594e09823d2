public import MockdFormat
import MockdPlatform

/// A scenario override: a request pattern with a priority and the response steps it gives.
///
/// Overrides are tried before the mock sets, highest `priority` first; among equal priorities the one
/// listed later (in include order, then file order) wins.
public final class Override: Sendable {
    private static let serials = Atomic<UInt64>(0)

    /// Unique in the process; keys the override's sequence cursor and rate-limit window.
    let serial: UInt64
    public let id: String
    public let priority: Int
    /// Position in the scenario after includes are resolved; breaks priority ties (later wins).
    public let position: Int
    public let pattern: RequestPattern
    let steps: [ResponseRecipe]
    public let afterLast: ExhaustionPolicy
    let rateLimit: RateLimitRule?
    /// The state machine condition and transition, when the override has one.
    public let state: StateRule?
    /// The share of matching calls (0…1) it answers, drawn from the session's seeded generator; `nil` = all.
    let chance: Double?
    /// Whether it ever answered (or was edited by a runtime stub above it), for coverage over the daemon's life.
    private let used = Atomic<Bool>(false)

    /// Marks the override used (coverage); only a read once it is.
    @inline(__always)
    func markUsed() {
        if !used.load(ordering: .relaxed) { used.store(true, ordering: .relaxed) }
    }

    /// Whether it ever answered a request (`markUsed`).
    var wasUsed: Bool { used.load(ordering: .relaxed) }

    init(
        id: String,
        priority: Int,
        position: Int,
        pattern: RequestPattern,
        steps: [ResponseRecipe],
        afterLast: ExhaustionPolicy,
        rateLimit: RateLimitRule?,
        state: StateRule? = nil,
        chance: Double? = nil
    ) {
        precondition(!steps.isEmpty, "an override needs at least one step")
        self.serial = Override.serials.wrappingAdd(1, ordering: .relaxed).newValue
        self.id = id
        self.priority = priority
        self.position = position
        self.pattern = pattern
        self.steps = steps
        self.afterLast = afterLast
        self.rateLimit = rateLimit
        self.state = state
        self.chance = chance
    }

    /// A copy under another id and position (a fresh `serial`, so it shares no cursor with this one): a runtime
    /// stub is compiled before the session picks its id, and placed under the session's lock.
    func placed(id: String, position: Int) -> Override {
        Override(
            id: id,
            priority: priority,
            position: position,
            pattern: pattern,
            steps: steps,
            afterLast: afterLast,
            rateLimit: rateLimit,
            state: state,
            chance: chance
        )
    }
}

/// An override's `state`: it matches only while machine `name` is in one of `requires` (any state when `nil`), and
/// once it answers the machine moves to `next` (no change when `nil`) — at its `after`th answer in the current state
/// when `after` is set. A `timeout` moves the machine on from `next` by itself. Machines live per session.
public struct StateRule: Sendable, Equatable {
    /// Every state machine's state before any transition (and after `POST /__mockd/reset`).
    public static let initial = "Started"

    public let name: String
    /// The states the override answers in; `nil` = any.
    public let requires: [String]?
    public let next: String?
    /// The answer (1-based, counted in the current state) that makes the transition; 1 without a counter.
    public let after: Int
    /// After `afterMs` ms of the session's clock in `next`, the machine moves to `next` of the timeout.
    public let timeout: (afterMs: Double, next: String)?

    public init(
        name: String,
        requires: [String]?,
        next: String?,
        after: Int = 1,
        timeout: (afterMs: Double, next: String)? = nil
    ) {
        self.name = name
        self.requires = requires
        self.next = next
        self.after = after
        self.timeout = timeout
    }

    public static func == (lhs: StateRule, rhs: StateRule) -> Bool {
        lhs.name == rhs.name && lhs.requires == rhs.requires && lhs.next == rhs.next && lhs.after == rhs.after
            && lhs.timeout?.afterMs == rhs.timeout?.afterMs && lhs.timeout?.next == rhs.timeout?.next
    }
}
