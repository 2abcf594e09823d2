/// What a stub answers once its response sequence is used up.
public enum ExhaustionPolicy: String, Sendable, Codable, CaseIterable {
    /// Keep answering with the last response (the default).
    case repeatLast
    /// Start the sequence over.
    case cycle
    /// Answer 404 as if no stub matched.
    case notFound

    /// The step to serve for the `callIndex`-th (0-based) matching request, or `nil` for 404.
    public func step(forCall callIndex: Int, count: Int) -> Int? {
        switch self {
        case .repeatLast: return min(callIndex, count - 1)
        case .cycle: return callIndex % count
        case .notFound: return callIndex < count ? callIndex : nil
        }
    }
}
