import Foundation
import MockdPlatform
import MockdTestSupport
import Testing

@testable import MockdCore

/// `ContentHash.Stream` (what `index.json` is hashed with as it is written) and `ContentHash.of(file:size:)` (what a
/// start hashes it with) give `ContentHash.of`'s digest for the same bytes however they arrive: around and across the
/// pieces `of` cuts a large buffer into.
struct ContentHashTests {
    private static let sizes: [Int] = {
        let piece = ContentHash.pieceSize
        return [0, 1, 31, 32, 33, piece - 1, piece, piece + 1, 2 * piece, 2 * piece + 17, 3 * piece - 5, 9 * piece + 3]
    }()

    private static func bytes(_ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
    }

    /// A file with `bytes`, opened for reading; removed when `body` returns.
    private func withFile<T>(_ bytes: [UInt8], _ body: (FileDescriptor) throws -> T) throws -> T {
        let folder = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("index.json").path
        try FileSystem.write(Data(bytes), to: path)
        let file = try FileDescriptor.open(path, .read)
        defer { file.close() }
        return try body(file)
    }

    /// Read a piece at a time on several threads, a file gets the digest of its bytes in one buffer, at every size
    /// around the pieces' edges (up to nine pieces: more than one round of the hashing threads).
    @Test func fileGivesTheDigestOfTheWholeBuffer() throws {
        for size in Self.sizes {
            let bytes = Self.bytes(size)
            let whole = bytes.withUnsafeBytes { ContentHash.of($0) }
            let read = try withFile(bytes) { ContentHash.of(file: $0, size: size) }
            #expect(read?.0 == whole.0 && read?.1 == whole.1, "\(size) bytes")
        }
    }

    /// A file that is not `size` bytes long when it is read (it grew or shrank since `fstat`) gets no digest: never
    /// one of its first `size` bytes, which could name a cache made from that prefix.
    @Test func aFileOfAnotherLengthGetsNoDigest() throws {
        let piece = ContentHash.pieceSize
        for size in [0, 10, piece, 2 * piece + 17] {
            try withFile(Self.bytes(size)) { file in
                #expect(ContentHash.of(file: file, size: size + 1) == nil, "\(size) bytes read as \(size + 1)")
                if size > 0 {
                    #expect(ContentHash.of(file: file, size: size - 1) == nil, "\(size) bytes read as \(size - 1)")
                }
                #expect(ContentHash.of(file: file, size: -1) == nil)
            }
        }
    }

    @Test func streamGivesTheDigestOfTheWholeBuffer() {
        var generator = SystemRandomNumberGenerator()
        for size in Self.sizes {
            let bytes = Self.bytes(size)
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
