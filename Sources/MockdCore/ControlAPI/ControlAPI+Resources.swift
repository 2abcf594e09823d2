import Foundation
import MockdPlatform

/// `/__mockd/resources`: the session's stateful resources as they are now.
extension ControlAPI {
    /// `GET /__mockd/resources`: `{"session", "resources": [{"name", "path", "count"}]}`.
    func listResources(_ call: Call) -> MockResponse {
        let (scenario, state) = call.session.core.withLock { ($0.scenario, $0.state) }
        let listed: [[String: Any]] = scenario.resources.map { resource in
            ["name": resource.name, "path": resource.path, "count": state.resources.items(of: resource).count]
        }
        return ControlAPI.json(200, ["session": call.session.id, "resources": listed])
    }

    /// `GET /__mockd/resources/NAME`: `{"session", "name", "path", "count", "items"}` (items in order); 404
    /// `unknown_resource` when the session's scenario declares no resource `NAME`.
    func getResource(_ call: Call) -> MockResponse {
        let (scenario, state) = call.session.core.withLock { ($0.scenario, $0.state) }
        guard let resource = scenario.resources.first(where: { $0.name == call.captured }) else {
            return ControlAPI.error(
                404,
                "unknown_resource",
                "scenario '\(scenario.name)' has no resource '\(call.captured)' (GET /__mockd/resources lists them)"
            )
        }
        let items = state.resources.items(of: resource)
        return ControlAPI.json(
            200,
            [
                "session": call.session.id, "name": resource.name, "path": resource.path, "count": items.count,
                "items": items.map(ControlAPI.foundationValue),
            ]
        )
    }
}
