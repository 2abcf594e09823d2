import Foundation
import MockdCore
import MockdPlatform

/// Bytes a body reader copies from, by offset: a body in memory, or a body served from its file.
protocol ByteSource: AnyObject {
    /// How many bytes there are.
    var count: Int { get }
    /// Copies up to `capacity` bytes from `offset` (< `count`) into `buffer`; returns how many (≥ 1), or -1 when
    /// the bytes cannot be read.
    func copy(from offset: Int, into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int
}

/// A body in memory as a `ByteSource`.
final class MemoryBytes: ByteSource {
    let data: Data
    init(_ data: Data) { self.data = data }
    var count: Int { data.count }

    func copy(from offset: Int, into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
        let count = min(capacity, data.count - offset)
        data.withUnsafeBytes { raw in buffer.copyMemory(from: raw.baseAddress!.advanced(by: offset), byteCount: count) }
        return count
    }
}

/// The parts of a `FileBody` (file ranges and framing bytes) read from an open file with `pread`, in bounded memory:
/// nothing is buffered here beyond what libmicrohttpd asks for. Owns the descriptor and closes it when released.
final class FileSegments: ByteSource {
    private let descriptor: Int32
    /// Each part with the offset in the body where it starts.
    private let parts: [(start: Int, part: FileBody.Part)]
    let count: Int

    /// - Parameter descriptor: An open descriptor of the file, now owned by this value.
    init(descriptor: Int32, parts: [FileBody.Part]) {
        self.descriptor = descriptor
        var start = 0
        var placed: [(start: Int, part: FileBody.Part)] = []
        for part in parts {
            placed.append((start, part))
            switch part {
            case .bytes(let data): start += data.count
            case .file(_, let count): start += count
            }
        }
        self.parts = placed
        self.count = start
    }

    deinit { FileDescriptor(rawValue: descriptor).close() }

    func copy(from offset: Int, into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
        // The last part starting at or before `offset` (there are a handful: ranges of one request).
        guard let index = parts.lastIndex(where: { $0.start <= offset }) else { return -1 }
        let (start, part) = parts[index]
        let within = offset - start
        switch part {
        case .bytes(let data):
            let count = min(capacity, data.count - within)
            data.withUnsafeBytes { raw in
                buffer.copyMemory(from: raw.baseAddress!.advanced(by: within), byteCount: count)
            }
            return count
        case .file(let fileOffset, let length):
            let wanted = min(capacity, length - within)
            while true {
                let read = FileDescriptor(rawValue: descriptor).read(
                    into: buffer,
                    count: wanted,
                    at: Int64(fileOffset + within)
                )
                if read > 0 { return read }
                if read < 0, errno == EINTR { continue }
                return -1  // an error, or the file shrank under us
            }
        }
    }
}

/// A `ByteSource` sent as fast as the connection takes it, through `MHD_create_response_from_callback`.
final class SourceBody: StreamingBody {
    let source: any ByteSource
    init(_ source: any ByteSource) { self.source = source }

    override func read(position: UInt64, into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let offset = Int(position)
        guard offset < source.count else { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
        let copied = source.copy(from: offset, into: UnsafeMutableRawPointer(buffer), capacity: capacity)
        return copied > 0 ? copied : -2  // MHD_CONTENT_READER_END_WITH_ERROR: the client sees a short body
    }
}
