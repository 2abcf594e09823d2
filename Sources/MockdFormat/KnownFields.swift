public import Foundation

/// The fields each file format defines, so that a typo (`latancy`) is an error naming the field rather than a
/// setting silently ignored.
///
/// The shapes are the formats' property names, level by level; `docs/schema/*.schema.json` publish the same
/// names for editors, and a test fails when the two disagree (`KnownFieldsSchemaTests`).
public enum KnownFields {
    /// What fields a JSON value of one place in a file may have.
    public indirect enum Shape: Sendable {
        /// An object with these fields; values of other JSON types are left to the decoder.
        case object([String: Shape])
        case array(Shape)
        /// Free content (JSON bodies, header maps).
        case any
        /// An object with free keys whose values have this shape (when they are objects).
        case map(Shape)
        /// One value of this shape, or an array of them.
        case oneOrMany(Shape)
    }

    /// The fields of one format type: its coding keys, each free (`.any`) unless `nested` describes it. Built from
    /// the types themselves, so that a field added to a type is known at once (and the schema test says whether
    /// docs/schema has it too).
    static func fields<Keys: CodingKey & CaseIterable>(
        of keys: Keys.Type,
        _ nested: [String: Shape] = [:]
    ) -> [String: Shape] {
        var result: [String: Shape] = [:]
        for key in Keys.allCases { result[key.stringValue] = nested[key.stringValue] ?? .any }
        precondition(
            nested.keys.allSatisfy { result[$0] != nil },
            "a nested shape names a field \(Keys.self) does not have"
        )
        return result
    }

    /// One response step of an override or the scenario `defaults`.
    public static let responseStep: [String: Shape] = fields(
        of: ResponseStepEntry.CodingKeys.self,
        [
            "latency": .object(fields(of: LatencyEntry.CodingKeys.self)),
            "throttle": .object(fields(of: ThrottleEntry.CodingKeys.self)),
            "serverUnavailable": .object(fields(of: ServerUnavailableEntry.CodingKeys.self)), "websocket": webSocket,
            "events": eventStream, "hold": .object(fields(of: HoldEntry.CodingKeys.self)), "emit": .array(emit),
        ]
    )

    /// One push of `emit` (`EmitEntry`).
    public static let emit: Shape = .object(
        fields(
            of: EmitEntry.CodingKeys.self,
            [
                "websocket": .object(
                    fields(
                        of: WebSocketEmit.CodingKeys.self,
                        ["close": .object(fields(of: WebSocketClose.CodingKeys.self))]
                    )
                ),
                "events": .object(fields(of: EventEmit.CodingKeys.self)),
                "webhook": .object(fields(of: WebhookEntry.CodingKeys.self, ["headers": .any])),
            ]
        )
    )
    /// A stub's GraphQL operation (`GraphQLEntry`).
    public static let graphqlKey: Shape = .object(fields(of: GraphQLEntry.CodingKeys.self))

    /// A response's recorded dates (`MockSetFile.DatesEntry`).
    public static let dates: Shape = .object(fields(of: MockSetFile.DatesEntry.CodingKeys.self))

    /// A query or header condition: a string, or an operator object.
    public static let valueMatch: Shape = .object(fields(of: ValueMatchEntry.CodingKeys.self))

    public static let eventStream: Shape = .object(
        fields(of: EventStream.CodingKeys.self, ["items": .array(.object(fields(of: ServerSentEvent.CodingKeys.self)))])
    )

    public static let webSocketStep: Shape = .object(
        fields(of: WebSocketStep.CodingKeys.self, ["close": .object(fields(of: WebSocketClose.CodingKeys.self))])
    )
    /// A WebSocket script's GraphQL protocol (`GraphQLWebSocketScript`).
    public static let graphQLWebSocket: Shape = .object(
        fields(
            of: GraphQLWebSocketScript.CodingKeys.self,
            [
                "subscriptions": .array(
                    .object(
                        fields(
                            of: GraphQLSubscriptionEntry.CodingKeys.self,
                            ["events": .array(.object(fields(of: GraphQLSubscriptionEvent.CodingKeys.self)))]
                        )
                    )
                )
            ]
        )
    )

    /// A WebSocket script; `connections` (scripts per connection) is checked by the decoder only.
    public static let webSocket: Shape = .object(
        fields(
            of: WebSocketScript.CodingKeys.self,
            [
                "graphql": graphQLWebSocket,
                "steps": .array(webSocketStep),
                "replies": .array(
                    .object(
                        fields(
                            of: WebSocketReply.CodingKeys.self,
                            [
                                "when": .object(fields(of: WebSocketMatch.CodingKeys.self)),
                                "then": .array(webSocketStep),
                                "state": .object(fields(of: WebSocketStateChange.CodingKeys.self)),
                                "emit": .array(emit),
                            ]
                        )
                    )
                ),
            ]
        )
    )

    /// An override's `match`.
    public static let match: Shape = .object(
        fields(
            of: ScenarioFile.MatchEntry.CodingKeys.self,
            [
                "query": .map(valueMatch), "headers": .map(valueMatch),
                "body": .oneOrMany(.object(fields(of: ScenarioFile.BodyMatchEntry.CodingKeys.self))),
                "graphql": .object(
                    fields(of: ScenarioFile.GraphQLMatchEntry.CodingKeys.self, ["operationName": valueMatch])
                ),
            ]
        )
    )

    /// One override (also the body of `POST /__mockd/stubs`): its own fields and, inline, one response step's.
    public static let overrideShape: Shape = .object(
        responseStep.merging(
            fields(
                of: ScenarioFile.OverrideEntry.CodingKeys.self,
                [
                    "match": match,
                    "state": .object(
                        fields(
                            of: ScenarioFile.StateEntry.CodingKeys.self,
                            ["timeout": .object(fields(of: ScenarioFile.StateTimeout.CodingKeys.self))]
                        )
                    ),
                    "responses": .array(.object(responseStep)),
                    "rateLimit": .object(fields(of: ScenarioFile.RateLimitEntry.CodingKeys.self)),
                ]
            ),
            uniquingKeysWith: { $1 }
        )
    )

    /// A scenario file, `configs/<name>.json` (`$schema` allowed for editors).
    public static let scenario: Shape = .object(
        ["$schema": .any].merging(
            fields(
                of: ScenarioFile.CodingKeys.self,
                [
                    "defaults": .object(responseStep), "overrides": .array(overrideShape), "normalize": normalize,
                    "resources": .array(resource),
                ]
            ),
            uniquingKeysWith: { $1 }
        )
    )

    /// One stateful resource of a scenario (`ResourceEntry`).
    public static let resource: Shape = .object(
        fields(
            of: ResourceEntry.CodingKeys.self,
            [
                "seed": .object(fields(of: ResourceSeedEntry.CodingKeys.self)),
                "paging": .object(fields(of: ResourcePagingEntry.CodingKeys.self)),
                "actions": .array(.object(fields(of: ResourceActionEntry.CodingKeys.self))),
            ]
        )
    )

    public static let normalize: Shape = .object(
        fields(
            of: RequestNormalization.CodingKeys.self,
            [
                "queryValues": .array(.object(fields(of: RequestNormalization.ValueRule.CodingKeys.self))),
                "bodyValues": .array(.object(fields(of: RequestNormalization.ValueRule.CodingKeys.self))),
            ]
        )
    )

    /// A mock set index, `mocks/<set>/index.json` (`$schema` allowed for editors).
    public static let mockSet: Shape = .object(
        ["$schema": .any].merging(
            fields(
                of: MockSetFile.CodingKeys.self,
                [
                    "normalize": normalize,
                    "stubs": .array(
                        .object(
                            fields(
                                of: MockSetFile.StubEntry.CodingKeys.self,
                                [
                                    "request": .object(
                                        fields(
                                            of: MockSetFile.RequestEntry.CodingKeys.self,
                                            [
                                                "body": .object(fields(of: MockSetFile.BodyEntry.CodingKeys.self)),
                                                "recordedBody": .object(
                                                    fields(of: MockSetFile.BodyEntry.CodingKeys.self)
                                                ),
                                                "graphql": graphqlKey,
                                            ]
                                        )
                                    ),
                                    "responses": .array(
                                        .object(
                                            fields(
                                                of: MockSetFile.ResponseEntry.CodingKeys.self,
                                                [
                                                    "websocket": webSocket, "events": eventStream, "emit": .array(emit),
                                                    "dates": dates,
                                                ]
                                            )
                                        )
                                    ),
                                ]
                            )
                        )
                    ),
                ]
            ),
            uniquingKeysWith: { $1 }
        )
    )

    /// A field the shape does not define: `jsonPath` (`overrides[0].latancy`) and the message
    /// (`unknown field (did you mean "latency"?)`).
    public struct UnknownField: Sendable, Equatable {
        public let jsonPath: String
        public let message: String

        public init(jsonPath: String, message: String) {
            self.jsonPath = jsonPath
            self.message = message
        }
    }

    /// Every field of the JSON document `data` that `shape` does not define, in document order by sorted keys;
    /// empty when `data` is not JSON (the decoder reports that).
    public static func unknownFields(in data: Data, shape: Shape) -> [UnknownField] {
        guard let root = try? JSONSerialization.jsonObject(with: data) else { return [] }
        var problems: [UnknownField] = []
        walk(root, shape: shape, path: "", problems: &problems)
        return problems
    }

    private static func walk(_ value: Any, shape: Shape, path: String, problems: inout [UnknownField]) {
        switch shape {
        case .any:
            return
        case .array(let element):
            guard let items = value as? [Any] else { return }
            for (index, item) in items.enumerated() {
                walk(item, shape: element, path: "\(path)[\(index)]", problems: &problems)
            }
        case .map(let element):
            guard let object = value as? [String: Any] else { return }
            for key in object.keys.sorted() {
                walk(object[key]!, shape: element, path: "\(path).\(key)", problems: &problems)
            }
        case .oneOrMany(let element):
            if let items = value as? [Any] {
                for (index, item) in items.enumerated() {
                    walk(item, shape: element, path: "\(path)[\(index)]", problems: &problems)
                }
            } else {
                walk(value, shape: element, path: path, problems: &problems)
            }
        case .object(let fields):
            guard let object = value as? [String: Any] else { return }
            for key in object.keys.sorted() {
                let childPath = path.isEmpty ? key : "\(path).\(key)"
                guard let child = fields[key] else {
                    let hint = closest(to: key, in: fields.keys).map { " (did you mean \"\($0)\"?)" } ?? ""
                    problems.append(UnknownField(jsonPath: childPath, message: "unknown field\(hint)"))
                    continue
                }
                walk(object[key]!, shape: child, path: childPath, problems: &problems)
            }
        }
    }

    /// The known name within edit distance 2 of `key`, if any.
    public static func closest<S: Sequence>(to key: String, in names: S) -> String? where S.Element == String {
        let lowered = Array(key.lowercased())
        var best: (name: String, distance: Int)?
        for name in names where !name.hasPrefix("$") {
            let candidate = Array(name.lowercased())
            var previous = Array(0...candidate.count)
            for (i, a) in lowered.enumerated() {
                var current = [i + 1]
                for (j, b) in candidate.enumerated() {
                    current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a == b ? 0 : 1)))
                }
                previous = current
            }
            let distance = previous[candidate.count]
            if distance <= 2, distance < (best?.distance ?? Int.max) { best = (name, distance) }
        }
        return best?.name
    }
}
