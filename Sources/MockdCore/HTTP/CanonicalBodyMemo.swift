import Foundation
import MockdFormat
import MockdPlatform

/// The canonical forms (`BodyCanonicalizer`) of one request's large body, computed once per request whatever asks for
/// them: the route lookup of every index the request goes through (runtime stubs, overrides, the base set, each host
/// tried) and the near-miss search. A 1 MB JSON body took about a second each time (Foundation's
/// `JSONSerialization` parses and writes it), and a request asked up to four times, holding its worker for as long.
///
/// Made with the request when its body is at least `threshold` bytes; emptied when the engine is done with the
/// request (`removeAll`), so a journaled request keeps no copy.
final class CanonicalBodyMemo: Sendable {
    /// Bodies smaller than this (bytes) are canonicalised every time: cheap, and most requests have none.
    static let threshold = 16 * 1024

    private struct Entry {
        /// The body it was made from, compared whole: a request whose body was replaced (decoded) asks again.
        let body: Data
        let contentType: String?
        /// The normaliser's rules when it has body rules (they change the canonical form), else `nil`.
        let bodyRules: RequestNormalization?
        let canonical: Data
    }

    private let entries = Mutex<[Entry]>([])

    init() {}

    /// `body`'s canonical form under `contentType` and `bodyRules` (a normaliser's rules when it has body rules, else
    /// `nil`: they alone change the canonical form): made by `make` the first time, then the same bytes.
    func canonical(
        of body: Data,
        contentType: String?,
        bodyRules: RequestNormalization?,
        make: () -> Data
    ) -> Data {
        let known = entries.withLock { entries in
            entries.first { $0.contentType == contentType && $0.bodyRules == bodyRules && $0.body == body }?.canonical
        }
        if let known { return known }
        // Made outside the lock: only this request's thread asks, and it takes long.
        let made = make()
        entries.withLock {
            $0.append(Entry(body: body, contentType: contentType, bodyRules: bodyRules, canonical: made))
        }
        return made
    }

    /// Forgets every canonical form (the request is answered).
    func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
