import Foundation
import MockdControl
import MockdFormat

/// `/__mockd/groups/NAME`: named groups of runtime stubs, each call one atomic change of the session, and
/// `DELETE /__mockd/session`, which a per-test session helper calls in tearDown.
extension ControlAPI {
    /// The most stubs one group call may carry.
    static let groupStubsMaximum = 10_000

    /// `GET /__mockd/groups`: the session's groups, sorted by name.
    func listGroups(_ call: Call, _: NoBody) -> GroupList {
        GroupList(
            session: call.session.id,
            groups: call.session.groups.map { GroupInfo(name: $0.name, stubs: $0.stubs) }
        )
    }

    /// `PUT` (replace the group) or `POST` (add to it) `/__mockd/groups/NAME` with `{"stubs": [stub, …]}`, each
    /// stub in the `POST /__mockd/stubs` format. Every stub is checked before anything changes: one bad stub
    /// refuses the whole call (400 `invalid_stub`, its lines starting `stubs[N]`).
    func putGroup(_ call: Call, replacing: Bool) throws -> GroupChange {
        let name = call.parameter("name")
        guard SessionRouting.isValidID(name) else {
            throw Failure(.invalidGroup, "group name '\(name)' must be 1–128 letters, digits, '-', '.', '_' or '~'")
        }
        guard case .object(let body)? = try? JSONValue(parsing: call.request.body),
            case .array(let stubs)? = body["stubs"],
            body.count == 1
        else {
            throw Failure(.badRequest, GroupStubs.usage)
        }
        guard stubs.count <= ControlAPI.groupStubsMaximum else {
            throw Failure(
                .badRequest,
                "a group call carries at most \(ControlAPI.groupStubsMaximum) stubs, got \(stubs.count)"
            )
        }
        var members: [Session.GroupMember] = []
        var problems: [String] = []
        var ids = Set<String>()
        for (index, stub) in stubs.enumerated() {
            let file = "stubs[\(index)]"
            guard case .object = stub, let data = try? JSONEncoder().encode(stub) else {
                problems.append("\(file): must be a JSON object in the POST /__mockd/stubs format")
                continue
            }
            switch compileStub(data, file: file) {
            case .failure(let problem): problems.append(problem.message)
            case .success(let member):
                if let id = member.requestedID, !ids.insert(id).inserted {
                    problems.append("\(file).id: '\(id)' is given to an earlier stub of the group too")
                }
                members.append(member)
            }
        }
        guard problems.isEmpty else { throw Failure(.invalidStub, problems.joined(separator: "\n")) }
        let placed = call.session.putGroup(name, members: members, replacing: replacing)
        return GroupChange(session: call.session.id, group: name, stubs: placed)
    }

    /// `DELETE /__mockd/groups/NAME`: 404 `unknown_group` when the session holds no stub of that group.
    func removeGroup(_ call: Call, _: NoBody) throws -> GroupRemoval {
        let name = call.parameter("name")
        let removed = call.session.removeGroup(name)
        guard removed > 0 else { throw Failure(.unknownGroup, "session '\(call.session.id)' has no group '\(name)'") }
        return GroupRemoval(session: call.session.id, group: name, removed: removed)
    }

    /// `DELETE /__mockd/session`: forgets the caller's session (journal, runtime stubs, state) so that a suite of
    /// many tests leaves no sessions behind; the default session is reset instead. Also for a session that did not
    /// exist.
    func dropSession(_ call: Call, _: NoBody) -> DroppedSession {
        if call.session.id == SessionRegistry.defaultID {
            call.session.reset()
        } else {
            engine.sessions.remove(call.session.id)
        }
        return DroppedSession(dropped: call.session.id)
    }
}
