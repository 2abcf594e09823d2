import Foundation

extension MockSetChangelog {
    /// The changelog formats of `mockd diff --format`.
    public enum Format: String, Sendable, CaseIterable {
        case text, markdown, json
    }

    /// The changelog as `format`, ending without a line feed.
    ///
    /// - Parameters:
    ///   - old: How to name the old side (`mocks/chat`, `old.har`).
    ///   - new: How to name the new side.
    public func rendered(_ format: Format, old: String, new: String) -> String {
        switch format {
        case .text: return text(old: old, new: new)
        case .markdown: return markdown(old: old, new: new)
        case .json: return json(old: old, new: new)
        }
    }

    /// `1 endpoint added, 1 removed, 2 changed`, or `no changes`.
    public var summary: String {
        if isEmpty { return "no changes" }
        let added = endpointsAdded.count
        return
            "\(added) endpoint\(added == 1 ? "" : "s") added, \(endpointsRemoved.count) removed, \(endpointsChanged.count) changed"
    }

    /// One line per change, for a terminal:
    ///
    /// ```
    /// old.har → new.har: 1 endpoint added, 1 removed, 1 changed
    /// + GET /v1/orders/{id} (api.example.com)
    /// - DELETE /v1/cart (api.example.com)
    /// ~ GET /v1/users/{id} (api.example.com)
    ///     status added: 404
    ///     200: field added $.fullName (string)
    /// ```
    func text(old: String, new: String) -> String {
        var lines = ["\(old) → \(new): \(summary)"]
        for endpoint in endpointsAdded { lines.append("+ \(endpoint.name)\(Self.hosts(endpoint))") }
        for endpoint in endpointsRemoved { lines.append("- \(endpoint.name)\(Self.hosts(endpoint))") }
        for change in endpointsChanged {
            lines.append("~ \(change.endpoint.name)\(Self.hosts(change.endpoint))")
            lines += change.details().map { "    " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// A section a reviewer reads in a pull request.
    func markdown(old: String, new: String) -> String {
        var lines = [
            "## API changes: `\(old)` → `\(new)`", "", summary.prefix(1).uppercased() + summary.dropFirst() + ".",
        ]
        if !endpointsAdded.isEmpty {
            lines += ["", "### Endpoints added", ""]
            lines += endpointsAdded.map { "- `\($0.name)`\(Self.hosts($0))" }
        }
        if !endpointsRemoved.isEmpty {
            lines += ["", "### Endpoints removed", ""]
            lines += endpointsRemoved.map { "- `\($0.name)`\(Self.hosts($0))" }
        }
        if !endpointsChanged.isEmpty {
            lines += ["", "### Endpoints changed"]
            for change in endpointsChanged {
                lines += ["", "#### `\(change.endpoint.name)`\(Self.hosts(change.endpoint))", ""]
                lines += change.details(code: true).map { "- " + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `{"old": …, "new": …, "equal": …, "endpointsAdded": […], …}`, keys sorted, pretty-printed.
    func json(old: String, new: String) -> String {
        struct Document: Encodable {
            var old: String
            var new: String
            var equal: Bool
            var changelog: MockSetChangelog

            func encode(to encoder: any Encoder) throws {
                try changelog.encode(to: encoder)
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(old, forKey: .old)
                try container.encode(new, forKey: .new)
                try container.encode(equal, forKey: .equal)
            }

            enum Keys: String, CodingKey { case old, new, equal }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Document(old: old, new: new, equal: isEmpty, changelog: self))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    private static func hosts(_ endpoint: Endpoint) -> String {
        endpoint.hosts.isEmpty ? "" : " (\(endpoint.hosts.joined(separator: ", ")))"
    }
}

extension EndpointChange {
    /// The lines under the endpoint: statuses, then structural changes, then value changes.
    func details(code: Bool = false) -> [String] {
        func quoted(_ text: String) -> String { code ? "`\(text)`" : text }
        var lines: [String] = []
        if !statusesAdded.isEmpty {
            lines.append("status added: " + statusesAdded.map(String.init).joined(separator: ", "))
        }
        if !statusesRemoved.isEmpty {
            lines.append("status removed: " + statusesRemoved.map(String.init).joined(separator: ", "))
        }
        for group in bodyChanges {
            for change in group.changes {
                let prefix = change.isInArrayItems ? "array item shape changed: " : ""
                switch change.kind {
                case .added:
                    lines.append("\(group.status): \(prefix)field added \(quoted(change.path)) (\(change.after ?? ""))")
                case .removed:
                    lines.append(
                        "\(group.status): \(prefix)field removed \(quoted(change.path)) (\(change.before ?? ""))"
                    )
                case .typeChanged:
                    lines.append(
                        "\(group.status): \(prefix)type changed \(quoted(change.path)): \(change.before ?? "") → \(change.after ?? "")"
                    )
                }
            }
        }
        for values in valueChanges {
            let more = values.count > values.examples.count ? ", …" : ""
            lines.append(
                "\(values.status): \(values.count) value\(values.count == 1 ? "" : "s") changed (\(values.examples.map(quoted).joined(separator: ", "))\(more))"
            )
        }
        return lines
    }
}
