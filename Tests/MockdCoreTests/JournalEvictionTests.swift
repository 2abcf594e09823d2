import Foundation
import MockdPlatform
import Testing

@testable import MockdCore

/// A full journal hints what its next evictions release into the cache (`Prefetch`): the hints must never change
/// what the ring keeps, drops or frees, whatever the records and the limit.
@Suite struct JournalEvictionTests {
    /// Headers packed as the server bridge packs them, so a request owns a packed buffer as a served one does.
    private static func packed(_ value: String) -> HTTPHeaders {
        HTTPHeaders(packing: { packer in
            Array("x-test".utf8).withUnsafeBytes { name in
                Array(value.utf8).withUnsafeBytes { packer.append(name: name, value: $0) }
            }
        })
    }

    private static func stub(_ index: Int) -> Stub {
        Stub(
            id: "s\(index)",
            setName: "test",
            key: RequestKey(method: "GET", rawPath: "/s\(index)", rawQuery: ""),
            responses: [MockResponse(status: 200, body: Data("s\(index)".utf8))]
        )
    }

    /// Appends a stub exchange, a planned exchange and an entry in turn; returns the stub each stub exchange holds.
    private static func append(_ index: Int, to journal: RequestJournal) -> Stub? {
        let request = HTTPRequest(method: "GET", target: "/s\(index)", headers: packed("\(index)"))
        switch index % 3 {
        case 0:
            let stub = stub(index)
            journal.append(
                EngineOutcome(stub: stub, request: request, session: .defaultSession, arrival: Date()).exchange,
                durationMs: 1
            )
            return stub
        case 1:
            let outcome = EngineOutcome(
                plan: PlannedResponse(response: MockResponse(status: 404)),
                request: request,
                session: .defaultSession,
                arrival: Date(),
                nearMisses: []
            )
            journal.append(outcome.exchange, durationMs: 1)
            return nil
        default:
            journal.append(
                time: Date(),
                request: request,
                stubID: nil,
                status: 418,
                fault: nil,
                durationMs: 1,
                response: MockResponse(status: 418),
                nearMisses: []
            )
            return nil
        }
    }

    @Test(arguments: [1, 2, 3, 4, 7])
    func aFullRingKeepsTheNewestAndFreesWhatItDrops(limit: Int) {
        let journal = RequestJournal(limit: limit)
        var stubs: [(index: Int, stub: Weak)] = []
        for index in 0..<(limit * 4 + 5) {
            if let stub = Self.append(index, to: journal) { stubs.append((index, Weak(stub))) }
            let (entries, dropped) = journal.snapshot()
            let kept = max(0, index + 1 - limit)..<(index + 1)
            #expect(entries.map(\.sequence) == kept.map { $0 + 1 })
            #expect(entries.map(\.target) == kept.map { "/s\($0)" })
            #expect(entries.map(\.status) == kept.map { [200, 404, 418][$0 % 3] })
            #expect(entries.map { $0.headers["x-test"] } == kept.map { "\($0)" })
            #expect(dropped == index + 1 - kept.count)
            // A stub lives exactly as long as a kept exchange holds it.
            for (stubIndex, stub) in stubs { #expect((stub.object != nil) == kept.contains(stubIndex)) }
        }
    }

    @Test func hintsOnFreedOrUnmappedAddressesAreHarmless() {
        let block = UnsafeMutableRawPointer.allocate(byteCount: 200, alignment: 16)
        block.deallocate()
        Prefetch.forWrite(UnsafeRawPointer(block), bytes: 200)
        // The first page is never mapped; a hint there (and the 16 bytes before it, wrapping below zero) is a no-op.
        Prefetch.forWrite(UnsafeRawPointer(bitPattern: 8)!, bytes: 64)
        Prefetch.forWrite(UnsafeRawPointer(bitPattern: 4096)!, bytes: 0)
    }
}

private final class Weak {
    weak var object: Stub?
    init(_ object: Stub) { self.object = object }
}
