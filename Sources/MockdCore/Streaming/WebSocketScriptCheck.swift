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
            if reply.then.isEmpty, reply.state == nil, reply.emit == nil {
                problems.append("replies[\(index)]: give then, state or emit (what the message causes)")
            }
            if let state = reply.state {
                if state.name.isEmpty { problems.append("replies[\(index)].state.name: name the state machine") }
                if state.next.isEmpty { problems.append("replies[\(index)].state.next: name the state to move to") }
                if let requires = state.requires, requires.names.isEmpty || requires.names.contains(where: \.isEmpty) {
                    problems.append("replies[\(index)].state.requires: name a state, or a non-empty list of states")
                }
            }
            if let emit = reply.emit, case .failure(let emitProblems) = Emissions.compile(emit) {
                problems += emitProblems.problems.map { "replies[\(index)].emit\($0.field): \($0.message)" }
            }
        }
        for (index, subscription) in (script.graphql?.subscriptions ?? []).enumerated() {
            let path = "graphql.subscriptions[\(index)]"
            if subscription.operationName.isEmpty { problems.append("\(path).operationName: name the operation") }
            switch subscription.variables {
            case nil, .null?, .object?: break
            default: problems.append("\(path).variables: must be an object of the operation's variables")
            }
            for (eventIndex, event) in (subscription.events ?? []).enumerated() {
                if event.data != nil && event.payload != nil {
                    problems.append("\(path).events[\(eventIndex)]: give \"data\" or \"payload\", not both")
                }
                if let after = event.after, !(0...TimeLimits.maxDelayMs).contains(after) {
                    problems.append(
                        "\(path).events[\(eventIndex)].after: must be within 0–\(Int(TimeLimits.maxDelayMs)) ms"
                    )
                }
            }
        }
        for (index, connection) in (script.connections ?? []).enumerated() {
            problems += self.problems(connection).map { "connections[\(index)].\($0)" }
        }
        return problems
    }
}
