import Dispatch
import MockdPlatform
import Testing

/// Coverage flags, one bit per stub: every flag set from any thread reads back set, no other.
@Suite struct AtomicFlagsTests {
    @Test(arguments: [0, 1, 63, 64, 65, 130, 1_000])
    func eachFlagIsItsOwn(count: Int) {
        let flags = AtomicFlags(count: count)
        #expect(flags.count == count)
        #expect((0..<count).allSatisfy { !flags.isSet($0) })
        for index in stride(from: 0, to: count, by: 3) { flags.set(index) }
        flags.set(2)
        // Out of range: ignored, never set.
        flags.set(-1)
        flags.set(count)
        for index in 0..<count {
            #expect(flags.isSet(index) == (index % 3 == 0 || index == 2), "flag \(index) of \(count)")
        }
        #expect(!flags.isSet(-1))
        #expect(!flags.isSet(count))
    }

    @Test func flagsOfOneWordSetAtOnceFromManyThreadsAllStay() {
        // 128 flags, two words: 8 threads each set every eighth flag, so every word is raced by all of them.
        let flags = AtomicFlags(count: 128)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<1_000 {
                for index in stride(from: thread, to: 128, by: 8) where round % 7 == index % 7 || round == 999 {
                    flags.set(index)
                }
            }
        }
        #expect((0..<128).filter { !flags.isSet($0) } == [])
        let fresh = AtomicFlags(count: 128)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in stride(from: thread, to: 128, by: 16) { fresh.set(index) }
        }
        #expect((0..<128).filter(fresh.isSet) == (0..<128).filter { $0 % 16 < 8 })
    }
}
