/// Walks an argument list, handling `--name value` and `--name=value`.
struct ArgumentReader {
    private var arguments: [String]
    private var position = 0
    private var pendingValue: String?

    init(_ arguments: [String]) {
        self.arguments = arguments
    }

    mutating func next() -> String? {
        guard position < arguments.count else { return nil }
        let argument = arguments[position]
        position += 1
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            pendingValue = String(argument[argument.index(after: equals)...])
            return String(argument[..<equals])
        }
        pendingValue = nil
        return argument
    }

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
    mutating func seconds(for option: String, in range: ClosedRange<Double>) throws -> Double {
        let text = try value(for: option)
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            let bounds = "\(EnvironmentDefaults.format(range.lowerBound))–\(EnvironmentDefaults.format(range.upperBound))"
            throw UsageError("\(option) expects a number of seconds in \(bounds), got '\(text)'")
        }
        return number
    }

    mutating func integer(for option: String, in range: ClosedRange<Int>) throws -> Int {
        let text = try value(for: option)
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("\(option) expects a whole number in \(range.lowerBound)–\(range.upperBound), got '\(text)'")
        }
        return number
    }
}
