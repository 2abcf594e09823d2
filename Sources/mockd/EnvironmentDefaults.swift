import Foundation

/// `MOCKD_*` environment variables as defaults for flags, for containers and CI services where setting the
/// environment is easier than the command line. A flag always wins over its variable; an empty value counts
/// as unset, except for `MOCKD_CONTROL_TOKEN`, where it is an error (`ControlTokenRule`): an empty secret means a
/// token was wanted and is missing. An invalid value is a usage error naming the variable.
///
/// `MOCKD_ROOT` is read by `MockdRoot.resolve` (every command honours it), not here.
enum EnvironmentDefaults {
    static let config = "MOCKD_CONFIG"
    static let host = "MOCKD_HOST"
    static let port = "MOCKD_PORT"
    static let controlToken = "MOCKD_CONTROL_TOKEN"
    static let root = "MOCKD_ROOT"
    static let insecureControl = "MOCKD_INSECURE_CONTROL"

    /// `MOCKD_CONFIG`: the scenario `serve` serves when neither `--config` nor `--set` is given.
    static func config(in environment: [String: String]) -> String? {
        value(config, in: environment)
    }

    /// Fills what the server flags of `serve` and `record` left unset.
    /// - Parameter given: The flags present on the command line.
    /// - Throws: `UsageError` naming the variable when its value is invalid.
    static func apply(_ environment: [String: String], to options: inout ServerFlags, given: Set<String>) throws {
        if !given.contains("--host"), let address = value(host, in: environment) {
            try checkHost(address, name: host)
            options.host = address
            options.hostSource = host
        }
        if !given.contains("--port"), let text = value(port, in: environment) {
            options.port = try portNumber(text, range: 0...65535)
            options.portSource = port
        }
        if !given.contains("--control-token"), let token = environment[controlToken] {
            options.controlToken = try ControlTokenRule.checked(token, source: controlToken)
        }
        if !given.contains("--insecure-control"), let flag = value(insecureControl, in: environment) {
            guard flag == "1" || flag == "0" else {
                throw UsageError("\(insecureControl)=\(flag) must be 1 or 0")
            }
            options.insecureControl = flag == "1"
        }
    }

    /// Fills what the health flags left unset.
    /// - Throws: `UsageError` naming the variable when its value is invalid (`MOCKD_PORT=0` too).
    static func apply(_ environment: [String: String], to options: inout HealthCheck, given: Set<String>) throws {
        if !given.contains("--host"), let address = value(host, in: environment) {
            try checkHost(address, name: host)
            options.host = address
        }
        if !given.contains("--port"), let text = value(port, in: environment) {
            guard text != "0" else {
                throw UsageError("\(port) is 0 (a free port, chosen at start); pass the port mockd printed with --port")
            }
            options.port = try portNumber(text, range: 1...65535)
        }
        if !given.contains("--control-token"), let token = environment[controlToken] {
            options.controlToken = try ControlTokenRule.checked(token, source: controlToken)
        }
    }

    /// A variable's value, `nil` when unset or empty.
    private static func value(_ name: String, in environment: [String: String]) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    private static func portNumber(_ text: String, range: ClosedRange<Int>) throws -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("\(port) expects a whole number in \(range.lowerBound)–\(range.upperBound), got '\(text)'")
        }
        return number
    }

    /// Rejects what cannot be a bind address: a URL, an address with a port (`0.0.0.0:8080`), spaces.
    /// Names (`localhost`) and IPv4/IPv6 literals pass; whether the address is this machine's is checked
    /// when binding.
    static func checkHost(_ address: String, name: String) throws {
        let bad =
            address.isEmpty || address.contains("/") || address.contains(where: \.isWhitespace)
            || (address.contains(":") && !isIPv6Literal(address))
        if bad {
            throw UsageError(
                "\(name) expects an address such as 127.0.0.1, 0.0.0.0 or ::1 (no scheme or port), got '\(address)'"
            )
        }
    }

    private static func isIPv6Literal(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    /// `5` or `0.5`: seconds without a needless `.0`.
    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }
}
