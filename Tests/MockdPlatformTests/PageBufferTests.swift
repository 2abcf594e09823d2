import Foundation
import MockdPlatform
import Testing

/// Pages of their own: zero-filled, writable to the last byte; with huge pages, aligned to one and, where the system
/// takes the request (Linux), marked for its transparent huge pages.
@Suite struct PageBufferTests {
    @Test(arguments: [1, 4_095, 4_096, 1_000_000])
    func smallPagesAreZeroFilledAndWritable(count: Int) throws {
        let buffer = try #require(PageBuffer(count: count))
        #expect(buffer.count == count)
        #expect(buffer.base.load(as: UInt8.self) == 0)
        #expect(buffer.base.load(fromByteOffset: count - 1, as: UInt8.self) == 0)
        buffer.base.storeBytes(of: 0xA5, toByteOffset: count - 1, as: UInt8.self)
        #expect(buffer.base.load(fromByteOffset: count - 1, as: UInt8.self) == 0xA5)
        #expect(buffer.asksForHugePages == (PageBuffer.takesHugePageRequests ? false : nil))
    }

    @Test func noBytesIsNoBuffer() {
        #expect(PageBuffer(count: 0) == nil)
        #expect(PageBuffer(count: -1, hugePages: true) == nil)
    }

    @Test(arguments: [1, 2, 3])
    func hugePagesStartAtAHugePageAndAreMarkedForThem(pages: Int) throws {
        let count = pages * PageBuffer.hugePageBytes
        let buffer = try #require(PageBuffer(count: count, hugePages: true))
        #expect(PageBuffer.hugePageBytes == 2_097_152)
        #expect(UInt(bitPattern: buffer.base) % UInt(PageBuffer.hugePageBytes) == 0)
        #expect(buffer.count == count)
        for offset in [0, count / 2, count - 8] {
            #expect(buffer.base.load(fromByteOffset: offset, as: UInt64.self) == 0)
            buffer.base.storeBytes(of: UInt64(offset), toByteOffset: offset, as: UInt64.self)
            #expect(buffer.base.load(fromByteOffset: offset, as: UInt64.self) == UInt64(offset))
        }
        // `nil` where the system takes no such request (Darwin).
        #expect(buffer.asksForHugePages == (PageBuffer.takesHugePageRequests ? true : nil))
    }
}
