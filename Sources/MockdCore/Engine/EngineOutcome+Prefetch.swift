import Foundation
import MockdControl
import MockdPlatform

/// What the journal hints into the cache before it evicts an exchange (`RequestJournal`): the oldest entry of a full
/// journal was made `--journal-limit` requests ago, so its object, and the stub it keeps alive, are usually out of
/// every cache by then. Released cold, each cost a wait on memory per request (at 100,000 stubs, ~4% of a worker).
extension EngineOutcome.Exchange {
    /// The exchange's object, without a reference count, and its size in bytes: what the journal asks the cache
    /// for two appends before the eviction.
    var object: (address: UnsafeRawPointer, bytes: Int) {
        switch self {
        case .planned(let exchange):
            return (UnsafeRawPointer(Unmanaged.passUnretained(exchange).toOpaque()), EngineOutcome.plannedBytes)
        case .stub(let exchange):
            return (UnsafeRawPointer(Unmanaged.passUnretained(exchange).toOpaque()), EngineOutcome.stubBytes)
        }
    }

    /// What releasing the exchange touches beyond its own object, without reference counts: the stub it keeps
    /// alive and the request's packed headers. Reads the object: asked one append before the eviction, once
    /// `object` is in. (Addresses, not the hints themselves: a C call while a reference is held kept a retain and a
    /// release around it, on the very line to be hinted.)
    var owned: (stub: UnsafeRawPointer?, headers: UnsafeRawPointer?) {
        switch self {
        case .planned(let exchange):
            return (nil, exchange.request.headers.packedAddress)
        case .stub(let exchange):
            return (UnsafeRawPointer(exchange.borrowedStub.toOpaque()), exchange.request.headers.packedAddress)
        }
    }
}

extension EngineOutcome {
    /// An object's size: its two-word header and its stored properties.
    fileprivate static let stubBytes =
        16 + MemoryLayout<HTTPRequest>.stride + MemoryLayout<Date>.stride + 2 * MemoryLayout<Int>.stride
    fileprivate static let plannedBytes =
        16 + MemoryLayout<HTTPRequest>.stride + MemoryLayout<Date>.stride + MemoryLayout<PlannedResponse>.stride
        + MemoryLayout<[NearMiss]>.stride + MemoryLayout<Bool>.stride
}
