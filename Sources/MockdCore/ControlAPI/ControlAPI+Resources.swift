import Foundation
import MockdControl
import MockdPlatform

/// `/__mockd/resources`: the session's stateful resources as they are now.
extension ControlAPI {
    func listResources(_ call: Call, _: NoBody) -> ResourceList {
        let (scenario, state) = call.session.core.withLock { ($0.scenario, $0.state) }
        return ResourceList(
            session: call.session.id,
            resources: scenario.resources.map { resource in
                ResourceSummary(
                    name: resource.name,
                    path: resource.path,
                    count: state.resources.items(of: resource).count
                )
            }
        )
    }

    /// `GET /__mockd/resources/NAME` (items in order); 404 `unknown_resource` when the session's scenario declares
    /// no resource `NAME`.
    func getResource(_ call: Call, _: NoBody) throws -> ResourceState {
        let name = call.parameter("name")
        let (scenario, state) = call.session.core.withLock { ($0.scenario, $0.state) }
        guard let resource = scenario.resources.first(where: { $0.name == name }) else {
            throw Failure(
                .unknownResource,
                "scenario '\(scenario.name)' has no resource '\(name)' (GET /__mockd/resources lists them)"
            )
        }
        let items = state.resources.items(of: resource)
        return ResourceState(
            session: call.session.id,
            name: resource.name,
            path: resource.path,
            count: items.count,
            items: items
        )
    }
}
