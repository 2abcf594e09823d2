public import Foundation
import MockdPlatform

/// A file a user names (a scenario, a set's `index.json`, a HAR, a WireMock mapping, an OpenAPI document), read
/// whole, with a reason the user can act on when it cannot be.
///
/// A regular file is read at its size; where the user names the path on the command line (`Source.argument`), a
/// pipe or terminal too (`cat traffic.har | mockd import-har /dev/stdin`, `<(gunzip -c traffic.har.gz)`), to its
/// end. A file mockd finds by name (a scenario, `index.json`) must be a regular file: a FIFO left in its place is
/// refused at once rather than waited on. Foundation's `Data(contentsOf:)` refuses a pipe with "You don't have
/// permission" and a folder with "error 256"; this names what the path is instead.
public enum UserFile {
    /// Why a path could not be read. `description` is the reason without the path ("is a folder, not a file"), for
    /// an error that names the path itself.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Nothing at the path (`ENOENT`, or a folder on the way missing: `ENOTDIR`).
        case notFound
        case folder
        /// A pipe where only a regular file is read, a socket or a device: `what` names it ("a pipe").
        case notAFile(what: String)
        /// Anything else the system refused, with its message (`strerror(3)`, lowercased: "permission denied").
        case system(String)

        public var description: String {
            switch self {
            case .notFound: "file not found"
            case .folder: "is a folder, not a file"
            case .notAFile(let what): "is \(what), not a regular file"
            case .system(let message): message
            }
        }
    }

    /// The failure of reading an opened path that is not a regular file, by what it is (`FileDescriptor.kind()`;
    /// `nil`: `fstat` failed); `nil` for a regular file.
    static func failure(reading kind: FileDescriptor.Kind?) -> Failure? {
        switch kind {
        case .regular?: nil
        case .folder?: .folder
        case .pipe?: .notAFile(what: "a pipe")
        case .characterDevice?: .notAFile(what: "a device")
        case .other?: .notAFile(what: "a socket or device")
        case nil: failure(FileDescriptor.lastError)
        }
    }

    /// Bytes read at a time from a pipe or device.
    private static let streamChunk = 64 * 1024

    /// Where the path comes from, which decides whether a pipe is read.
    public enum Source: Sendable {
        /// Named by the user on the command line: a pipe or terminal is read to its end.
        case argument
        /// Found by name in a folder (a scenario, `index.json`): only a regular file is read.
        case folder
    }

    /// Checks that `path` opens for reading as a regular file, without reading it (`read(_:from:)`'s checks for a file
    /// of a folder): what a merge carries unread must be a file it could read.
    /// - Throws: The `Failure` reading it would throw on opening.
    static func checkReadable(_ path: String) throws(Failure) {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, .readWithoutWaiting)
        } catch {
            throw failure(error)
        }
        defer { file.close() }
        if let failure = failure(reading: file.kind()) { throw failure }
    }

    /// The whole content of the file at `url`.
    /// - Throws: `Failure`.
    public static func read(_ url: URL, from source: Source) throws(Failure) -> Data {
        let file: FileDescriptor
        do {
            // Opened without waiting when only a regular file will do: opening a FIFO would wait for a writer.
            file = try FileDescriptor.open(url.path, source == .argument ? .read : .readWithoutWaiting)
        } catch {
            throw failure(error)
        }
        defer { file.close() }
        let kind = file.kind()
        switch kind {
        case .regular(let size)?:
            // One byte more than the size, so a file that grew since `fstat` is read to its end as well.
            return try readToEnd(file, chunk: size + 1)
        case .pipe?, .characterDevice?:
            guard source == .argument else { throw .notAFile(what: kind == .pipe ? "a pipe" : "a device") }
            return try readToEnd(file, chunk: streamChunk)
        case .folder?:
            throw .folder
        case .other?:
            throw .notAFile(what: "a socket or device")
        case nil:
            throw failure(FileDescriptor.lastError)
        }
    }

    /// What is left to read in `file` (a pipe, say), read to its end.
    /// - Throws: `Failure.system` when a read fails.
    static func readToEnd(_ file: FileDescriptor) throws(Failure) -> Data {
        try readToEnd(file, chunk: streamChunk)
    }

    private static func readToEnd(_ file: FileDescriptor, chunk: Int) throws(Failure) -> Data {
        var data = Data()
        var step = max(chunk, 1)
        while true {
            let start = data.count
            data.count = start + step
            let count: Int
            do {
                count = try data.withUnsafeMutableBytes {
                    try file.readFully(into: UnsafeMutableRawBufferPointer(rebasing: $0[start...]))
                }
            } catch {
                throw failure(error)
            }
            if count < step {
                data.count = start + count
                return data
            }
            step = streamChunk
        }
    }

    /// The failure an error of opening or reading a path stands for.
    static func failure(_ error: any Error) -> Failure {
        switch (error as? POSIXError)?.code {
        case .ENOENT?, .ENOTDIR?: return .notFound
        case .EISDIR?: return .folder
        // What `open(2)` says of a socket (and of a device without its driver).
        case .ENXIO?, .ENODEV?, .EOPNOTSUPP?: return .notAFile(what: "a socket or device")
        // Said plainly: "too many levels of symbolic links" also covers a chain longer than the system follows.
        case .ELOOP?: return .system("its symbolic links lead round in a loop, or through more than the system follows")
        case .ENAMETOOLONG?: return .system("the name is too long for the file system")
        default:
            let message = FileDescriptor.message(of: error)
            return .system(message.prefix(1).lowercased() + message.dropFirst())
        }
    }
}
