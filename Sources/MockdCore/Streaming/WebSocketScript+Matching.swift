import Foundation
public import MockdFormat
import MockdPlatform

extension WebSocketMatch {
    /// Whether a client message matches.
    public func matches(_ message: WebSocketMessage) -> Bool {
        if any == true { return true }
        guard case .text(let text) = message else { return false }
        if let expected = self.text { return text == expected }
        if let json {
            guard let actual = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return false }
            return RequestPattern.jsonContains(actual, json)
        }
        // On a budget (`BoundedRegex`): a match that runs out of it is no match, and the reactor moves on.
        if let regex, RegexGuard.problem(in: regex) == nil, RegexGuard.admits(text, pattern: regex),
            let expression = try? BoundedRegex(regex)
        {
            return expression.firstMatch(in: text) == .match
        }
        return false
    }
}

extension WebSocketPayload {
    /// The frame to send.
    public var message: WebSocketMessage {
        switch self {
        case .text(let text): return .text(text)
        case .json(let value):
            return .text((try? String(decoding: JSONValueEncoding.data(value), as: UTF8.self)) ?? "null")
        case .binary(let data): return .binary(data)
        }
    }
}
