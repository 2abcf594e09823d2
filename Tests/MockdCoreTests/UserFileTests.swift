import Foundation
import MockdPlatform
import MockdTestSupport
import Testing

@testable import MockdCore

/// `UserFile`: a file a user names read whole, a pipe read only where the user named it, and every other kind of
/// path refused with a reason that says what it is.
struct UserFileTests {
    private let folder = Paths.makeTemporaryDirectory()

    private func path(_ name: String) -> URL { folder.appendingPathComponent(name) }

    private func failure(_ url: URL, from source: UserFile.Source) -> UserFile.Failure? {
        do {
            _ = try UserFile.read(url, from: source)
            return nil
        } catch {
            return error
        }
    }

    @Test func regularFilesAreReadWholeFromEitherSource() throws {
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: path("big.json"))
        try Data().write(to: path("empty.json"))
        #expect(try UserFile.read(path("big.json"), from: .folder) == bytes)
        #expect(try UserFile.read(path("big.json"), from: .argument) == bytes)
        #expect(try UserFile.read(path("empty.json"), from: .folder) == Data())
    }

    @Test func missingFoldersAndSocketsAreNamed() throws {
        try FileManager.default.createDirectory(at: path("folder.json"), withIntermediateDirectories: false)
        try Data("{}".utf8).write(to: path("file"))
        #expect(failure(path("missing.json"), from: .folder) == .notFound)
        #expect(failure(path("file/below.json"), from: .argument) == .notFound)
        #expect(failure(path("folder.json"), from: .argument) == .folder)
        #expect(failure(path("folder.json"), from: .folder)?.description == "is a folder, not a file")

        let socket = try UnixSocket(path: path("socket.har").path)
        defer { socket.close() }
        #expect(
            failure(path("socket.har"), from: .argument)?.description == "is a socket or device, not a regular file"
        )
    }

    /// A FIFO with no writer where only a regular file will do: refused at once, not waited on (this test would hang).
    @Test func aPipeFoundInAFolderIsRefusedWithoutWaiting() throws {
        #expect(mkfifo(path("index.json").path, 0o644) == 0)
        #expect(failure(path("index.json"), from: .folder)?.description == "is a pipe, not a regular file")
        #expect(
            failure(URL(fileURLWithPath: "/dev/null"), from: .folder)?.description == "is a device, not a regular file"
        )
    }

    /// A pipe the user named (`<(gunzip -c x.har.gz)`) is read to its end, across many pipe-buffer refills.
    @Test func aPipeNamedOnTheCommandLineIsReadToItsEnd() throws {
        let fifo = path("traffic.har")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo.path) else { return }
            for start in stride(from: 0, to: bytes.count, by: 10_000) {
                handle.write(bytes[start..<min(start + 10_000, bytes.count)])
            }
            try? handle.close()
        }
        writer.start()
        #expect(try UserFile.read(fifo, from: .argument) == bytes)
        #expect(try UserFile.read(URL(fileURLWithPath: "/dev/null"), from: .argument) == Data())
    }
}

/// A listening Unix socket bound at a path, so that the path exists as a socket.
private struct UnixSocket {
    let descriptor: Int32

    init(path: String) throws {
        descriptor = socket(AF_UNIX, PlatformSocket.streamType, 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    func close() { _ = Foundation.close(descriptor) }
}
