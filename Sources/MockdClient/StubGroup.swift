import Foundation

/// A named set of runtime stubs a test puts in place, replaces or removes in one call: a reusable fixture.
///
/// The daemon applies each group call atomically (`PUT /__mockd/groups/NAME`): a request of the app sees the stubs
/// before the call or all of those after it, never a mix. Build groups with functions, and reuse them:
///
/// ```swift
/// extension StubGroup {
///     static func orders(_ orders: [Order]) throws -> StubGroup {
///         try StubGroup("orders") {
///             try StubDefinition.json(method: "GET", path: "/v1/orders", body: orders)
///             for order in orders { try StubDefinition.json(method: "GET", path: "/v1/orders/\(order.id)", body: order) }
///         }
///     }
/// }
/// try await mockd.replace(.orders([.open(1), .open(2), .cancelled(3)]))
/// ```
public struct StubGroup: Sendable, Equatable {
    /// 1–128 letters, digits, `-`, `.`, `_` or `~`; stubs without an id are named `NAME.1`, `NAME.2`…
    public var name: String
    /// In the order they are tried among equal priorities (later wins, as for stubs added one by one).
    public var stubs: [StubDefinition]

    public init(_ name: String, stubs: [StubDefinition]) {
        self.name = name
        self.stubs = stubs
    }

    /// A group from a builder block (`if`, `for` and `try` allowed).
    public init(_ name: String, @StubGroupBuilder stubs: () throws -> [StubDefinition]) rethrows {
        self.init(name, stubs: try stubs())
    }
}

/// Collects the stubs of a `StubGroup` block.
@resultBuilder
public enum StubGroupBuilder {
    public static func buildExpression(_ stub: StubDefinition) -> [StubDefinition] { [stub] }
    public static func buildExpression(_ stubs: [StubDefinition]) -> [StubDefinition] { stubs }
    public static func buildBlock(_ parts: [StubDefinition]...) -> [StubDefinition] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [StubDefinition]?) -> [StubDefinition] { part ?? [] }
    public static func buildEither(first part: [StubDefinition]) -> [StubDefinition] { part }
    public static func buildEither(second part: [StubDefinition]) -> [StubDefinition] { part }
    public static func buildArray(_ parts: [[StubDefinition]]) -> [StubDefinition] { parts.flatMap { $0 } }
}

extension MockdClient {
    /// Replaces this session's group `group.name` with `group.stubs` in one atomic step (creating it when new).
    /// Every stub is checked first: if one is refused, nothing changes.
    /// - Returns: The ids the stubs are kept under, in order (`NAME.N` for those without an id).
    /// - Throws: `.server(400, "invalid_stub", …)` naming `stubs[N]` and the field, `.server(400, "invalid_group",
    ///   …)` for a bad name.
    @discardableResult
    public func replace(_ group: StubGroup) async throws -> [String] {
        try await call(
            ControlRoutes.replaceGroup,
            path: [group.name],
            body: GroupStubs(stubs: group.stubs.map(\.entry))
        )
        .stubs
    }

    /// Adds `group.stubs` to this session's group `group.name` in one atomic step (a stub with the id of an existing
    /// one replaces it). - Returns: their ids. - Throws: as `replace(_:)`.
    @discardableResult
    public func add(_ group: StubGroup) async throws -> [String] {
        try await call(ControlRoutes.addToGroup, path: [group.name], body: GroupStubs(stubs: group.stubs.map(\.entry)))
            .stubs
    }

    /// Removes every stub of group `name` in one step. - Returns: how many there were.
    /// - Throws: `.server(404, "unknown_group", …)` when this session has no such group.
    @discardableResult
    public func removeGroup(_ name: String) async throws -> Int {
        try await call(ControlRoutes.removeGroup, path: [name]).removed
    }

    /// This session's groups, sorted by name.
    public func groups() async throws -> [GroupInfo] {
        try await call(ControlRoutes.listGroups).groups
    }

    /// Forgets this session on the daemon (journal, runtime stubs, groups, state): what a test's tearDown calls so
    /// that a long suite leaves no sessions behind. The default session is reset instead.
    public func dropSession() async throws {
        _ = try await call(ControlRoutes.dropSession)
    }
}
