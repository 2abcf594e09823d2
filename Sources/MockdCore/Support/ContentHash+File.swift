import Foundation
import MockdPlatform

extension ContentHash {
    /// The digest `of(_:)` gives for the bytes of `file`, read a piece (`pieceSize`) at a time into one reused
    /// buffer per hashing thread (`ParallelSlices.sliceCount` of them), never whole.
    ///
    /// How a start checks a set's compact index against its `index.json`: read whole, a 100,000-stub set's 61 MiB
    /// `index.json` came into fresh pages, ~15,600 page faults and ~40 ms of a 280 ms start, for bytes only hashed.
    /// - Parameter size: The file's size as `fstat` gave it.
    /// - Returns: `nil` when a read fails or the file does not end at `size` now (it grew or shrank meanwhile): a
    ///   digest is only ever of the file's bytes as one length, never of a cut or mixed read.
    static func of(file: FileDescriptor, size: Int) -> (UInt64, UInt64)? {
        guard size >= 0 else { return nil }
        guard size > pieceSize else {
            // One piece, hashed whole as `of(_:)` does; one byte more is asked for, to see the end.
            guard let buffer = PageBuffer(count: size + 1),
                readPiece(of: file, into: buffer.base, count: size + 1, at: 0) == size
            else { return nil }
            return digest(of: UnsafeRawBufferPointer(start: buffer.base, count: size))
        }
        let pieces = (size + pieceSize - 1) / pieceSize
        let workers = min(pieces, ParallelSlices.sliceCount)
        let shared = SharedDigests(pieces: pieces)
        defer { shared.deallocate() }
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            guard let buffer = PageBuffer(count: pieceSize) else { return }
            // Every `workers`-th piece, so each thread reads its own pieces in file order.
            for piece in stride(from: worker, to: pieces, by: workers) {
                let start = piece * pieceSize
                let length = min(pieceSize, size - start)
                guard readPiece(of: file, into: buffer.base, count: length, at: start) == length else { return }
                let (first, second) = digest(of: UnsafeRawBufferPointer(start: buffer.base, count: length))
                shared.digests[piece * 2] = first
                shared.digests[piece * 2 + 1] = second
                shared.done[piece] = true
            }
        }
        var probe: UInt8 = 0
        guard shared.done.allSatisfy({ $0 }), readPiece(of: file, into: &probe, count: 1, at: size) == 0 else {
            return nil
        }
        shared.digests[pieces * 2] = UInt64(size)
        return digest(of: UnsafeRawBufferPointer(shared.digests))
    }

    /// `FileDescriptor.readFully(into:at:)` of `count` bytes at `offset` into `buffer`; -1 when a read fails.
    private static func readPiece(
        of file: FileDescriptor,
        into buffer: UnsafeMutableRawPointer,
        count: Int,
        at offset: Int
    ) -> Int {
        (try? file.readFully(into: UnsafeMutableRawBufferPointer(start: buffer, count: count), at: Int64(offset))) ?? -1
    }

    /// The pieces' digests and whether each was read whole, shared by the hashing threads (each writes its own
    /// pieces' slots, and the caller reads them after all threads are done).
    private struct SharedDigests: @unchecked Sendable {
        let digests: UnsafeMutableBufferPointer<UInt64>
        let done: UnsafeMutableBufferPointer<Bool>

        init(pieces: Int) {
            digests = .allocate(capacity: pieces * 2 + 1)
            done = .allocate(capacity: pieces)
            done.initialize(repeating: false)
        }

        func deallocate() {
            digests.deallocate()
            done.deallocate()
        }
    }
}
