import Foundation
import Testing

@testable import MockdCore

/// What the release functions below were called with, in order.
nonisolated(unsafe) private var released: [(function: String, pointer: UInt)] = []
private let releasedLock = NSLock()

private func record(_ function: String, _ pointer: UnsafeMutableRawPointer) {
    releasedLock.withLock { released.append((function, UInt(bitPattern: pointer))) }
}

/// A native response slot keeps the response's address in the stub's own word when it can (the release function the
/// process registered first, an even address) and in a separate cell otherwise: either way a load gives back what was
/// stored, the first store wins a race, and the owner's end releases each response once, with its own function.
@Suite(.serialized) struct NativeResponseSlotTests {
    @Test func everyStoredResponseLoadsBackAndIsReleasedOnceByItsOwnFunction() {
        released = []
        let buffers = (0..<4).map { _ in UnsafeMutableRawPointer.allocate(byteCount: 32, alignment: 16) }
        defer { buffers.forEach { $0.deallocate() } }
        // Which function the process registered first depends on the tests run before: both kinds are stored.
        let first: NativeResponseRelease = { record("first", $0) }
        let second: NativeResponseRelease = { record("second", $0) }
        do {
            let slots = (0..<4).map { _ in NativeResponseBox() }
            #expect(slots.allSatisfy { $0.load() == nil })
            #expect(slots[0].store(buffers[0], release: first) == buffers[0])
            #expect(slots[1].store(buffers[1], release: second) == buffers[1])
            // An odd address can never be a direct word.
            #expect(slots[2].store(buffers[2] + 1, release: first) == buffers[2] + 1)
            #expect(slots[3].store(buffers[3], release: second) == buffers[3])
            // The first store wins: a later one gets the stored response back and keeps its own.
            #expect(slots[0].store(buffers[3], release: second) == buffers[0])
            #expect(slots[2].store(buffers[1], release: first) == buffers[2] + 1)
            #expect(slots.map { $0.load() } == [buffers[0], buffers[1], buffers[2] + 1, buffers[3]])
            #expect(released.isEmpty)
        }
        let byPointer = Dictionary(released.map { ($0.pointer, $0.function) }, uniquingKeysWith: { _, _ in "twice" })
        #expect(released.count == 4)
        #expect(
            byPointer == [
                UInt(bitPattern: buffers[0]): "first", UInt(bitPattern: buffers[1]): "second",
                UInt(bitPattern: buffers[2] + 1): "first", UInt(bitPattern: buffers[3]): "second",
            ]
        )
    }

    /// The same through a stub, the slot of its own first response.
    @Test func aStubReleasesItsFirstResponseWhenItGoes() {
        released = []
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 32, alignment: 16)
        defer { buffer.deallocate() }
        do {
            let stub = Stub(
                id: "s",
                setName: "test",
                key: RequestKey(method: "GET", rawPath: "/s", rawQuery: ""),
                responses: [MockResponse(status: 200, body: Data("s".utf8))]
            )
            #expect(stub.load() == nil)
            #expect(stub.store(buffer, release: { record("stub", $0) }) == buffer)
            #expect(stub.load() == buffer)
        }
        #expect(released.map(\.function) == ["stub"])
        #expect(released.map(\.pointer) == [UInt(bitPattern: buffer)])
    }
}
