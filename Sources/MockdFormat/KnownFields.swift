import Foundation

/// Rejects fields a file format does not define, so a typo (`latancy`) is an error naming the field rather
/// than a setting silently ignored. The shapes mirror docs/schema/*.schema.json.
enum KnownFields {
    indirect enum Shape: Sendable {
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

    static let responseStep: [String: Shape] = [
        "status": .any, "headers": .any, "addHeaders": .any, "body": .any, "bodyFile": .any, "bodyPatch": .any,
        "latency": .object(["fixed": .any, "min": .any, "max": .any, "median": .any, "sigma": .any, "seed": .any, "recorded": .any]),
        "throttle": .object(["bytesPerSecond": .any]), "fault": .any, "serverUnavailable": .object(["retryAfter": .any]),
        "websocket": webSocket, "events": eventStream, "hold": .object(["timeoutMs": .any]), "templated": .any,
    ]

    /// A query or header condition: a string, or an operator object.
    static let valueMatch: Shape = .object([
        "equalTo": .any, "caseInsensitive": .any, "matches": .any, "doesNotMatch": .any, "contains": .any, "absent": .any,
    ])

    static let eventStream: Shape = .object([
        "items": .array(.object(["after": .any, "event": .any, "data": .any, "id": .any, "retry": .any])), "keepOpen": .any,
    ])

    static let webSocketStep: Shape = .object(["after": .any, "send": .any, "close": .object(["code": .any, "reason": .any]), "drop": .any])
    static let webSocket: Shape = .object([
        "steps": .array(webSocketStep),
        "replies": .array(.object(["when": .object(["text": .any, "json": .any, "regex": .any, "any": .any]), "then": .array(webSocketStep), "once": .any])),
        "connections": .any,
    ])

    /// One override (also the body of `POST /__mockd/stubs`).
    static let overrideShape: Shape = .object(
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

    static let scenario: Shape = .object([
        "$schema": .any, "version": .any, "description": .any, "include": .any, "sets": .any,
        "defaults": .object(responseStep), "conditionalRequests": .any, "overrides": .array(overrideShape),
        "normalize": normalize, "cors": .any,
    ])

    static let normalize: Shape = .object([
        "ignoreQuery": .any, "ignoreBodyFields": .any,
        "queryValues": .array(.object(["name": .any, "pattern": .any, "placeholder": .any])),
        "bodyValues": .array(.object(["name": .any, "pattern": .any, "placeholder": .any])),
    ])

    static let mockSet: Shape = .object([
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

    /// Every unknown field in `data` as a `ConfigError` (`file: JSON path: unknown field`).
    static func check(_ data: Data, shape: Shape, file: String) -> [ConfigError] {
        guard let root = try? JSONSerialization.jsonObject(with: data) else { return [] }
        var problems: [ConfigError] = []
        walk(root, shape: shape, path: "", file: file, problems: &problems)
        return problems
    }

    private static func walk(_ value: Any, shape: Shape, path: String, file: String, problems: inout [ConfigError]) {
        switch shape {
        case .any:
            return
        case .array(let element):
            guard let items = value as? [Any] else { return }
            for (index, item) in items.enumerated() { walk(item, shape: element, path: "\(path)[\(index)]", file: file, problems: &problems) }
        case .map(let element):
            guard let object = value as? [String: Any] else { return }
            for key in object.keys.sorted() { walk(object[key]!, shape: element, path: "\(path).\(key)", file: file, problems: &problems) }
        case .oneOrMany(let element):
            if let items = value as? [Any] {
                for (index, item) in items.enumerated() { walk(item, shape: element, path: "\(path)[\(index)]", file: file, problems: &problems) }
            } else {
                walk(value, shape: element, path: path, file: file, problems: &problems)
            }
        case .object(let fields):
            guard let object = value as? [String: Any] else { return }
            for key in object.keys.sorted() {
                let childPath = path.isEmpty ? key : "\(path).\(key)"
                guard let child = fields[key] else {
                    let hint = closest(to: key, in: fields.keys).map { " (did you mean \"\($0)\"?)" } ?? ""
                    problems.append(ConfigError(.invalidValue, file: file, jsonPath: childPath, message: "unknown field\(hint)"))
                    continue
                }
                walk(object[key]!, shape: child, path: childPath, file: file, problems: &problems)
            }
        }
    }

    /// The known name within edit distance 2 of `key`, if any.
    static func closest<S: Sequence>(to key: String, in names: S) -> String? where S.Element == String {
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
