import Testing

@testable import MockdCore

/// The answer cache picks a slot by a hash of the target: targets that differ in one byte anywhere (`/items/1` …
/// `/items/9`, `/v1/users/17/a` … `/v1/users/17/z`) must spread over the slots as random ones would, or the
/// requests sharing a slot push each other out and are routed every time.
@Suite struct AnswerCacheSlotTests {
    /// 16 targets that differ only in the byte at `position`, for every length and position up to 40 bytes: at least
    /// 12 distinct slots of 1,024 each time (16 random slots give 16 in 89% of draws, 11 or fewer about once in 5
    /// million; the hash before this test gave 2 for the last byte of an 8-byte word).
    @Test func targetsDifferingInOneByteSpreadOverTheSlots() {
        for length in 1...40 {
            for position in 0..<length {
                let slots = Set(
                    (0..<16).map { variant in
                        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                        bytes[0] = UInt8(ascii: "/")
                        bytes[position] = UInt8(ascii: "0") + UInt8(variant)
                        return AnswerCache.slot(of: String(decoding: bytes, as: UTF8.self))
                    }
                )
                #expect(slots.count >= 12, "length \(length), byte \(position): \(slots.count) slots")
            }
        }
    }
}
