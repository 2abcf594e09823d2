import Foundation
import Testing

@testable import MockdCore

/// `ContentHash.Stream` (what `index.json` is hashed with as it is written) gives `ContentHash.of`'s digest for the
/// same bytes however they arrive: around and across the pieces `of` cuts a large buffer into.
struct ContentHashTests {
    @Test func streamGivesTheDigestOfTheWholeBuffer() {
        let piece = ContentHash.pieceSize
        var generator = SystemRandomNumberGenerator()
        for size in [0, 1, 31, 32, 33, piece - 1, piece, piece + 1, 2 * piece, 2 * piece + 17, 3 * piece - 5] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
            let whole = bytes.withUnsafeBytes { ContentHash.of($0) }
            for parts in [1, 2, 7, 1000] {
                var stream = ContentHash.Stream()
                var start = 0
                bytes.withUnsafeBytes { raw in
                    for part in 0..<parts {
                        let end =
                            part == parts - 1
                            ? size : min(size, start + Int.random(in: 0...size / parts, using: &generator))
                        stream.update(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                        start = end
                    }
                }
                let digest = stream.finish()
                #expect(stream.byteCount == size)
                #expect(digest.0 == whole.0 && digest.1 == whole.1, "\(size) bytes in \(parts) parts")
            }
        }
    }

    @Test func oneByteChangedChangesTheStreamedDigest() {
        var bytes = [UInt8](repeating: 7, count: ContentHash.pieceSize + 100)
        var first = ContentHash.Stream()
        bytes.withUnsafeBytes { first.update($0) }
        bytes[ContentHash.pieceSize + 50] = 8
        var second = ContentHash.Stream()
        bytes.withUnsafeBytes { second.update($0) }
        #expect(first.finish().0 != second.finish().0)
    }
}
