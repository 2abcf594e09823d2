import Foundation
import MockdFormat

/// `/__mockd/groups/NAME`: named groups of runtime stubs, each call one atomic change of the session, and
/// `DELETE /__mockd/session`, which a per-test session helper calls in tearDown.
extension ControlAPI {
    /// The most stubs one group call may carry.
    static let groupStubsMaximum = 10_000

    /// `GET /__mockd/groups`: `{"session", "groups": [{"name", "stubs": [ids]}]}`, groups sorted by name.
    func listGroups(_ call: Call) -> MockResponse {
        let groups = call.session.groups.map { group -> [String: Any] in ["name": group.name, "stubs": group.stubs] }
        return ControlAPI.json(200, ["session": call.session.id, "groups": groups])
    }

    /// `PUT` (replace the group) or `POST` (add to it) `/__mockd/groups/NAME` with `{"stubs": [stub, …]}`, each
    /// stub in the `POST /__mockd/stubs` format. Every stub is checked before anything changes: one bad stub
    /// refuses the whole call (400 `invalid_stub`, its lines starting `stubs[N]`). 200
    /// `{"session", "group", "stubs": [ids]}`.
    func putGroup(_ call: Call, replacing: Bool) -> MockResponse {
        let name = call.captured
        guard SessionRouting.isValidID(name) else {
            return ControlAPI.error(
                400,
                "invalid_group",
                "group name '\(name)' must be 1–128 letters, digits, '-', '.', '_' or '~'"
            )
        }
        guard let body = ControlAPI.object(call.request.body), let stubs = body["stubs"] as? [Any],
            Set(body.keys).isSubset(of: ["stubs"])
        else {
            return ControlAPI.error(400, "bad_request", #"send {"stubs": [stub, …]} (each as for POST /__mockd/stubs)"#)
        }
        guard stubs.count <= ControlAPI.groupStubsMaximum else {
            return ControlAPI.error(
                400,
                "bad_request",
                "a group call carries at most \(ControlAPI.groupStubsMaximum) stubs, got \(stubs.count)"
            )
        }
        var members: [Session.GroupMember] = []
        var problems: [String] = []
        var ids = Set<String>()
        for (index, stub) in stubs.enumerated() {
            let file = "stubs[\(index)]"
            guard stub is [String: Any],
                let data = try? JSONSerialization.data(withJSONObject: stub, options: [.fragmentsAllowed])
            else {
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
        guard problems.isEmpty else {
            return ControlAPI.error(400, "invalid_stub", problems.joined(separator: "\n"))
        }
        let placed = call.session.putGroup(name, members: members, replacing: replacing)
        return ControlAPI.json(200, ["session": call.session.id, "group": name, "stubs": placed])
    }

    /// `DELETE /__mockd/groups/NAME`: 200 `{"session", "group", "removed": N}`; 404 `unknown_group` when the
    /// session holds no stub of that group.
    func removeGroup(_ call: Call) -> MockResponse {
        let removed = call.session.removeGroup(call.captured)
        guard removed > 0 else {
            return ControlAPI.error(
                404,
                "unknown_group",
                "session '\(call.session.id)' has no group '\(call.captured)'"
            )
        }
        return ControlAPI.json(200, ["session": call.session.id, "group": call.captured, "removed": removed])
    }

    /// `DELETE /__mockd/session`: forgets the caller's session (journal, runtime stubs, state) so that a suite of
    /// many tests leaves no sessions behind; the default session is reset instead. 200 `{"dropped": ID}`, also for
    /// a session that did not exist.
    func dropSession(_ call: Call) -> MockResponse {
        if call.session.id == SessionRegistry.defaultID {
            call.session.reset()
        } else {
            engine.sessions.remove(call.session.id)
        }
        return ControlAPI.json(200, ["dropped": call.session.id])
    }
}
