/// Walks an argument list, handling `--name value` and `--name=value`.
///
/// `-h` and `--help` end the walk wherever they stand (the flags before them are still checked), so that no
/// command needs a case for them.
struct ArgumentReader {
    private var arguments: [String]
    private var position = 0
    private var pendingValue: String?
    /// Every flag (`--port` for `--port=80` too) and argument `next()` has returned: what the command line
    /// set, so that a `MOCKD_*` default leaves it alone.
    private(set) var seen: Set<String> = []

    init(_ arguments: [String]) {
        self.arguments = arguments
    }

    /// The next flag (its name alone for `--name=value`) or argument; `nil` after the last.
    /// - Throws: `InformationRequest.help` for `-h` and `--help`.
    mutating func next() throws -> String? {
        guard position < arguments.count else { return nil }
        var argument = arguments[position]
        position += 1
        pendingValue = nil
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            pendingValue = String(argument[argument.index(after: equals)...])
            argument = String(argument[..<equals])
        }
        if argument == "-h" || argument == "--help" { throw InformationRequest.help }
        seen.insert(argument)
        return argument
    }

    /// The value of `option`: after `=`, else the next argument unless that is a flag (`--`, alone, is a value).
    /// - Throws: `UsageError` when there is none.
    mutating func value(for option: String) throws -> String {
        if let pendingValue {
            self.pendingValue = nil
            return pendingValue
        }
        guard position < arguments.count, !arguments[position].hasPrefix("--") || arguments[position] == "--" else {
            throw UsageError("\(option) needs a value")
        }
        position += 1
        return arguments[position - 1]
    }

    /// A number of seconds, fractions allowed (`0.5`).
    /// - Throws: `UsageError` naming the range when the value is not a finite number in it.
    mutating func seconds(for option: String, in range: ClosedRange<Double>) throws -> Double {
        let text = try value(for: option)
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            let bounds =
                "\(EnvironmentDefaults.format(range.lowerBound))–\(EnvironmentDefaults.format(range.upperBound))"
            throw UsageError("\(option) expects a number of seconds in \(bounds), got '\(text)'")
        }
        return number
    }

    /// A whole number.
    /// - Throws: `UsageError` naming the range when the value is not a whole number in it.
    mutating func integer(for option: String, in range: ClosedRange<Int>) throws -> Int {
        let text = try value(for: option)
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "\(option) expects a whole number in \(range.lowerBound)–\(range.upperBound), got '\(text)'"
            )
        }
        return number
    }
}
