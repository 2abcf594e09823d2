import Foundation
import MockdFormat

/// Checks a WebSocket script for mistakes the decoder cannot see (close codes, regexes, empty matches).
enum WebSocketScriptCheck {
    static func problems(_ script: WebSocketScript) -> [String] {
        var problems: [String] = []
        /// - Parameter inReply: Whether the steps answer a client message (a reply's `then`), which `echo` sends back.
        func check(_ steps: [WebSocketStep]?, _ path: String, inReply: Bool = false) {
            for (index, step) in (steps ?? []).enumerated() {
                let actions = [step.send != nil, step.close != nil, step.drop == true, step.echo == true].filter { $0 }
                    .count
                if actions != 1 { problems.append("\(path)[\(index)]: give exactly one of send, close, drop, echo") }
                if step.echo == false { problems.append("\(path)[\(index)].echo: takes true; leave it out otherwise") }
                if step.echo == true, !inReply {
                    problems.append(
                        "\(path)[\(index)].echo: echo sends back the client's message, so it belongs in a reply's then, not in steps"
                    )
                }
                if let after = step.after, !(0...TimeLimits.maxDelayMs).contains(after) {
                    problems.append("\(path)[\(index)].after: must be within 0–\(Int(TimeLimits.maxDelayMs)) ms")
                }
                if let code = step.close?.code,
                    !(1000...4999).contains(code) || [1004, 1005, 1006, 1015].contains(code)
                {
                    problems.append(
                        "\(path)[\(index)].close.code: \(code) cannot be sent in a close frame (RFC 6455 §7.4)"
                    )
                }
            }
        }
        check(script.steps, "steps")
        for (index, reply) in (script.replies ?? []).enumerated() {
            let conditions = [
                reply.when.text != nil, reply.when.json != nil, reply.when.regex != nil, reply.when.any == true,
            ].filter { $0 }.count
            if conditions != 1 { problems.append("replies[\(index)].when: give exactly one of text, json, regex, any") }
            if let regex = reply.when.regex, (try? NSRegularExpression(pattern: regex)) == nil {
                problems.append("replies[\(index)].when.regex: not a valid regular expression")
            } else if let regex = reply.when.regex, let problem = RegexGuard.problem(in: regex) {
                problems.append("replies[\(index)].when.regex: regular expression '\(regex)' \(problem)")
            }
            check(reply.then, "replies[\(index)].then", inReply: true)
        }
        for (index, connection) in (script.connections ?? []).enumerated() {
            problems += self.problems(connection).map { "connections[\(index)].\($0)" }
        }
        return problems
    }
}
