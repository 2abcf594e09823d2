/// Overrides that other overrides keep from answering, for `mockd validate` (and one line at start).
///
/// The matching order is explicit: the highest `priority` first; among equal priorities the override listed later
/// (after includes are resolved: an including file's after the included file's, then file order). So an override
/// listed later with the same priority takes every request both match — a catch-all written after a specific
/// override takes its traffic. Two warnings follow from it:
/// - an override can never answer when one tried before it (higher priority, or equal and listed later) matches every
///   request it matches, and always answers them (no `state.requires`, no `chance`);
/// - an override is shadowed in part when one of equal priority listed later also matches some of its requests.
/// Both only between overrides of one file: an including file's override that takes requests from an included file's
/// is how one scenario builds on another.
enum OverrideShadows {
    /// One line per override kept from answering, `file: overrides[N] ('id'): …`, in file order.
    /// - Parameter sources: The file and index in its `overrides` of each override, by `position`.
    static func warnings(_ overrides: [Override], sources: [(file: String, index: Int)]) -> [String] {
        // Matching order (as `Scenario.overrides` is sorted).
        let ordered = overrides.sorted {
            $0.priority != $1.priority ? $0.priority > $1.priority : $0.position > $1.position
        }
        func source(_ override: Override) -> (file: String, index: Int) {
            override.position < sources.count ? sources[override.position] : ("scenario", override.position)
        }
        /// `file: overrides[N] ('id')`, without the file when it is `loser`'s.
        func name(_ override: Override, besides loser: Override? = nil) -> String {
            let (file, index) = source(override)
            let prefix = loser.map { source($0).file == file } == true ? "" : "\(file): "
            return "\(prefix)overrides[\(index)] ('\(override.id)')"
        }
        var found: [(position: Int, line: String)] = []
        for (rank, loser) in ordered.enumerated() {
            // Within one file: an including file's override taking an included one's requests is how a scenario
            // builds on another (chat_connection_drops replaces the happy path's socket), not a mistake.
            let winners = ordered[..<rank].filter {
                $0.state?.requires == nil && $0.chance == nil && source($0).file == source(loser).file
            }
            if let winner = winners.first(where: { $0.pattern.covers(loser.pattern) }) {
                let why =
                    winner.priority == loser.priority
                    ? "\(name(winner, besides: loser)), listed later with the same priority (\(loser.priority)), matches every request it matches and wins the tie; give '\(loser.id)' a higher priority or list it after"
                    : "\(name(winner, besides: loser)), of higher priority (\(winner.priority) > \(loser.priority)), matches every request it matches"
                found.append((loser.position, "\(name(loser)): can never answer: \(why)"))
                continue
            }
            for winner in winners where winner.priority == loser.priority {
                guard let request = loser.pattern.sharedRequest(with: winner.pattern) else { continue }
                found.append(
                    (
                        loser.position,
                        "\(name(loser)): \(name(winner, besides: loser)), listed later with the same priority (\(loser.priority)), also matches some of its requests (such as \(request.method) \(request.target)) and answers them: the later of equal priorities wins; give one a higher priority if that is not meant"
                    )
                )
                break
            }
        }
        return found.sorted { $0.position < $1.position }.map(\.line)
    }
}
