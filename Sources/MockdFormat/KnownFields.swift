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

    public static let responseStep: [String: Shape] = [
        "status": .any, "headers": .any, "addHeaders": .any, "body": .any, "bodyFile": .any, "bodyPatch": .any,
        "latency": .object(["fixed": .any, "min": .any, "max": .any, "median": .any, "sigma": .any, "seed": .any, "recorded": .any]),
        "throttle": .object(["bytesPerSecond": .any]), "fault": .any, "serverUnavailable": .object(["retryAfter": .any]),
        "websocket": webSocket, "events": eventStream, "hold": .object(["timeoutMs": .any]), "templated": .any,
    ]

    /// A query or header condition: a string, or an operator object.
    public static let valueMatch: Shape = .object([
        "equalTo": .any, "caseInsensitive": .any, "matches": .any, "doesNotMatch": .any, "contains": .any, "absent": .any,
    ])

    public static let eventStream: Shape = .object([
        "items": .array(.object(["after": .any, "event": .any, "data": .any, "id": .any, "retry": .any])), "keepOpen": .any,
    ])

    public static let webSocketStep: Shape = .object(["after": .any, "send": .any, "close": .object(["code": .any, "reason": .any]), "drop": .any])
    public static let webSocket: Shape = .object([
        "steps": .array(webSocketStep),
        "replies": .array(.object(["when": .object(["text": .any, "json": .any, "regex": .any, "any": .any]), "then": .array(webSocketStep), "once": .any])),
        "connections": .any,
    ])

    /// One override (also the body of `POST /__mockd/stubs`).
    public static let overrideShape: Shape = .object(
        responseStep.merging(
            [
                "id": .any, "priority": .any, "afterLast": .any,
                "match": .object([
                    "method": .any, "path": .any, "pathPattern": .any, "url": .any, "urlPattern": .any, "query": .map(valueMatch),
                    "headers": .map(valueMatch),
                    "body": .oneOrMany(
                        .object([
                            "json": .any, "text": .any, "contains": .any, "jsonEquals": .any, "matches": .any, "doesNotMatch": .any,
                            "jsonPath": .any, "absent": .any,
                        ])
                    ),
                ]),
                "state": .object(["name": .any, "requires": .any, "next": .any]),
                "responses": .array(.object(responseStep)),
                "rateLimit": .object(["limit": .any, "windowMs": .any, "retryAfter": .any]),
            ],
            uniquingKeysWith: { $1 }
        )
    )

    public static let scenario: Shape = .object([
        "$schema": .any, "version": .any, "description": .any, "include": .any, "sets": .any,
        "defaults": .object(responseStep), "conditionalRequests": .any, "overrides": .array(overrideShape),
        "normalize": normalize, "cors": .any,
    ])

    public static let normalize: Shape = .object([
        "ignoreQuery": .any, "ignoreBodyFields": .any,
        "queryValues": .array(.object(["name": .any, "pattern": .any, "placeholder": .any])),
        "bodyValues": .array(.object(["name": .any, "pattern": .any, "placeholder": .any])),
    ])

    public static let mockSet: Shape = .object([
        "$schema": .any, "version": .any, "matchHeaders": .any, "normalize": normalize, "cors": .any, "conditionalRequests": .any,
        "stubs": .array(
            .object([
                "id": .any, "afterLast": .any,
                "request": .object([
                    "host": .any, "method": .any, "path": .any, "query": .any, "headers": .any,
                    "body": .object(["file": .any, "text": .any, "json": .any, "contentType": .any]),
                ]),
                "responses": .array(
                    .object([
                        "status": .any, "headers": .any, "bodyFile": .any, "body": .any, "json": .any, "recordedTimeMs": .any,
                        "templated": .any, "websocket": webSocket, "events": eventStream, "fault": .any,
                    ])
                ),
            ])
        ),
    ])

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
            for (index, item) in items.enumerated() { walk(item, shape: element, path: "\(path)[\(index)]", problems: &problems) }
        case .map(let element):
            guard let object = value as? [String: Any] else { return }
            for key in object.keys.sorted() { walk(object[key]!, shape: element, path: "\(path).\(key)", problems: &problems) }
        case .oneOrMany(let element):
            if let items = value as? [Any] {
                for (index, item) in items.enumerated() { walk(item, shape: element, path: "\(path)[\(index)]", problems: &problems) }
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
