/// A request body that says how it is written: what a body that does not decode is told.
public protocol ControlRequestBody {
    /// How to write the body, one line: `send {"name": "<scenario>"}`.
    static var usage: String { get }
    /// The message for a value at `field` (the coding path: `["rules", "x"]`) that does not decode; `nil` for
    /// `usage`.
    static func problem(at field: [String]) -> String?
}

extension ControlRequestBody {
    public static func problem(at field: [String]) -> String? { nil }
}

extension UseScenario: ControlRequestBody {
    public static var usage: String { #"send {"name": "<scenario>"}"# }
}

extension ClockChange: ControlRequestBody {
    public static var usage: String { #"send {"advanceMs": N} or {"set": "2026-12-01T09:00:00Z"}"# }
    public static func problem(at field: [String]) -> String? {
        field == ["advanceMs"] ? "advanceMs must be a whole number of ms, 0…10⁹" : nil
    }
}

extension SwitchesChange: ControlRequestBody {
    public static var usage: String {
        #"send {"latencyScale": N, "seed": N, "rules": {"ID": true|false}} (any of them)"#
    }
    public static func problem(at field: [String]) -> String? {
        switch field.first {
        case "latencyScale": return "latencyScale must be a number from 0 (no latency) to 1000"
        case "seed": return "seed must be a whole number from 0 to 2⁵³"
        case "rules" where field.count == 2: return "rules.\(field[1]) must be true (on) or false (off)"
        case "rules": return "rules must be an object of override ids to true (on) or false (off)"
        default: return nil
        }
    }
}

extension VerifyRequest: ControlRequestBody {
    public static var usage: String { #"send {"method": "POST", "path": "/v1/x", "count": 1}"# }
    public static func problem(at field: [String]) -> String? {
        switch field.first {
        case "count", "atLeast": return #"give "count" (exactly) or "atLeast", a whole number from 0 to 1000000000"#
        case "contract": return #""contract" must be true"#
        case "path": return #""path" is required and must start with '/'"#
        case "method", "host": return "\"\(field[0])\" must be a string"
        default: return nil
        }
    }
}

extension WebSocketPush: ControlRequestBody {
    public static var usage: String {
        #"send {"text": "…"}, {"json": …} or {"binary": "<base64>"}, optionally with "path""#
    }
    public static func problem(at field: [String]) -> String? {
        switch field.first {
        case "path": return #""path" must be a string"#
        case "text", "binary": return #"give one of "text", "json" or "binary" (base64)"#
        default: return nil
        }
    }
}

extension WebSocketCloseRequest: ControlRequestBody {
    public static var usage: String { #"send {"code": 1000, "reason": "…", "path": "…"} (all optional)"# }
}

extension ReleaseRequest: ControlRequestBody {
    public static var usage: String { #"send {} or {"path": "/v1/updates"}"# }
}

extension GroupStubs: ControlRequestBody {
    public static var usage: String { #"send {"stubs": [stub, …]} (each as for POST /__mockd/stubs)"# }
}
