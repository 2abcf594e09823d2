public import Foundation

/// A body served from its file instead of from memory: body files of `FileBody.threshold` bytes or more keep only
/// their path and size once loaded, and the server bridge sends them from disk (`sendfile` through libmicrohttpd),
/// so a 64 MiB video costs no 64 MiB of memory, at start, per download or after a reload.
///
/// A partial answer (a 206, RFC 9110 §14) is a list of parts: ranges of the file and, for `multipart/byteranges`,
/// the framing bytes between them.
public struct FileBody: Sendable, Equatable {
    /// Body files this large or larger are served from disk: 1 MiB. Below it, a body is read at load and shared by
    /// every answer through one native response (the fast path, a few instructions per request more than a raw
    /// buffer); at or above it, memory matters more than the open, fstat and close each answer then costs (a few
    /// microseconds against the milliseconds the transfer takes).
    public static let threshold = 1 << 20

    /// One piece of what is sent.
    public enum Part: Sendable, Equatable {
        /// Bytes sent as they are (multipart framing).
        case bytes(Data)
        /// `count` bytes of the file from byte `offset`.
        case file(offset: Int, count: Int)
    }

    /// The file's absolute path.
    public let path: String
    /// The file's size in bytes when the mock set was loaded; the bridge refuses to serve a file whose size changed
    /// since (500: reload the set with SIGHUP or `POST /__mockd/reload`).
    public let size: Int
    /// What to send, in order: the whole file, or a 206's ranges and framing.
    public var parts: [Part]

    /// The whole file at `path`, of `size` bytes.
    public init(path: String, size: Int) {
        self.path = path
        self.size = size
        self.parts = [.file(offset: 0, count: size)]
    }

    /// How many bytes are sent (the `Content-Length`).
    public var count: Int {
        parts.reduce(0) { total, part in
            switch part {
            case .bytes(let data): return total + data.count
            case .file(_, let count): return total + count
            }
        }
    }

    /// The bytes that are sent, read from the file now: for what needs a body in memory (a `bodyPatch`).
    /// - Throws: The file system's error when the file cannot be read.
    /// - Complexity: O(count) time and memory.
    public func bytes() throws -> Data {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var result = Data()
        for part in parts {
            switch part {
            case .bytes(let data): result.append(data)
            case .file(let offset, let count):
                try handle.seek(toOffset: UInt64(offset))
                result.append(try handle.read(upToCount: count) ?? Data())
            }
        }
        return result
    }
}
