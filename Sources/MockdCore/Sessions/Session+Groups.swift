import MockdFormat

/// Stub groups: named sets of runtime stubs that a test adds, replaces or removes in one call
/// (`/__mockd/groups/NAME`), so that "a user with 3 orders, one cancelled" is swapped for another state without a
/// moment in which half of each is served.
extension Session {
    /// One stub of a group, compiled, before the session places it.
    struct GroupMember: Sendable {
        let override: Override
        let definition: JSONValue
        /// The id the caller asked for, or `nil` for `GROUP.N`.
        let requestedID: String?
    }

    /// Puts `members` into group `name` in one step under the session's lock: a request or a listing sees either
    /// the stubs before the call or all of those after it, never a part.
    ///
    /// With `replacing`, the group's stubs before the call are removed first (`PUT`); without, the members are
    /// added to them (`POST`). A member whose id another runtime stub holds replaces that stub, as
    /// `addRuntimeStub` does. A member without an id gets `NAME.N`, the first N from 1 up that no runtime stub
    /// of the session holds. Members keep their order and are tried as if added one after the other.
    /// - Returns: The ids the members are kept under, in order.
    /// - Complexity: O(n + m) in the session's runtime stubs and the members (ids compared through a set).
    func putGroup(_ name: String, members: [GroupMember], replacing: Bool) -> [String] {
        change { core in
            var runtime = core.runtime
            if replacing { runtime.removeAll { $0.group == name } }
            let requested = Set(members.compactMap(\.requestedID))
            runtime.removeAll { requested.contains($0.override.id) }
            var taken = Set(runtime.map(\.override.id)).union(requested)
            var counter = 1
            var ids: [String] = []
            for member in members {
                var id = member.requestedID ?? ""
                if id.isEmpty {
                    repeat {
                        id = "\(name).\(counter)"
                        counter += 1
                    } while taken.contains(id)
                    taken.insert(id)
                }
                let placed = member.override.placed(id: id, position: runtime.count)
                runtime.append(RuntimeStub(override: placed, definition: member.definition, group: name))
                ids.append(id)
            }
            core.runtime = runtime
            return ids
        }
    }

    /// Removes every stub of group `name` in one step.
    /// - Returns: How many stubs it held (0 when there is no such group).
    func removeGroup(_ name: String) -> Int {
        change { core in
            let before = core.runtime.count
            core.runtime.removeAll { $0.group == name }
            return before - core.runtime.count
        }
    }

    /// The session's groups by name, each with its stub ids in matching-tie order (the order added).
    var groups: [(name: String, stubs: [String])] {
        let stubs = runtimeStubs
        var order: [String] = []
        var members: [String: [String]] = [:]
        for stub in stubs {
            guard let group = stub.group else { continue }
            if members[group] == nil { order.append(group) }
            members[group, default: []].append(stub.override.id)
        }
        return order.sorted().map { ($0, members[$0] ?? []) }
    }
}
