import Foundation
import MockdPlatform

/// Writes a `MockSetBuild` to `mocks/<set>/` atomically: the folder appears complete or not at all.
public struct MockSetWriter: Sendable {
    public let root: MockdRoot

    public init(root: MockdRoot) {
        self.root = root
    }

    /// Writes the set. Files are first written to a hidden sibling folder, which then takes the set's place in one
    /// atomic step (`MockSetSwap`); on any failure the temporary folder is removed and an existing set is left
    /// untouched, and a kill at any point leaves the old set or the new one in place (never none), with leftovers
    /// removed at the next start or write (`MockSetRecovery`).
    ///
    /// The index is pretty-printed JSON with sorted keys, so the same build always gives identical bytes.
    /// - Parameters:
    ///   - replace: Replace an existing set of that name (its old folder is removed only after the new one
    ///     is in place).
    ///   - offeringMerge: Whether the command can merge into an existing set (`--merge`), so the `.setExists` error
    ///     offers it beside `--force`.
    /// - Throws: `MockSetWriteError` `.setExists` when the set exists and `replace` is false, `.writeFailed`
    ///   when the disk refuses.
    public func write(
        _ build: MockSetBuild,
        set name: String,
        replace: Bool,
        source: String,
        offeringMerge: Bool = false
    ) throws {
        let fileManager = FileManager.default
        let destination = root.setURL(name)
        let display = root.display(destination) + "/"
        if fileManager.fileExists(atPath: destination.path), !replace {
            let merge =
                offeringMerge
                ? "pass --merge to merge this import into it (the stubs it records replaced, the others and hand edits to them kept) or --force"
                : "pass --force"
            throw MockSetWriteError(
                .setExists,
                file: display,
                message: "mock set '\(name)' already exists; \(merge) to replace it (hand edits there would be lost)"
            )
        }
        // Leftovers of an earlier interrupted write of this set go first (the caller reports a full recovery).
        _ = MockSetRecovery.recover(root: root, set: name)
        let unique = "\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        let staging = root.mocksURL.appendingPathComponent(".\(name).importing-\(unique)", isDirectory: true)
        let retired = root.mocksURL.appendingPathComponent(".\(name).replaced-\(unique)", isDirectory: true)
        // Held from before the staging folder exists until after it is gone: while it is, no recovery in any process
        // touches this write's folders (`MockSetRecovery`); the kernel drops it if this process dies.
        let writerLock: FileLock
        do {
            try fileManager.createDirectory(at: root.mocksURL, withIntermediateDirectories: true)
            let lockPath = MockSetRecovery.lockPath(ofWrite: unique, set: name, in: root)
            guard let lock = FileLock.acquire(path: lockPath) else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOLCK)
            }
            writerLock = lock
        } catch {
            throw MockSetWriteError(
                .writeFailed,
                file: display,
                message:
                    "could not lock the write in mocks/ (\(oneLine(error.localizedDescription))); nothing was changed",
                cause: error
            )
        }
        defer { writerLock.release() }
        do {
            try fileManager.createDirectory(at: staging, withIntermediateDirectories: true)
            // Encoding the index is CPU work and writing many body files mostly system time: on two threads at
            // once. The index's error, as the first thing written, is the one reported when both fail.
            for relative in build.folders {
                try fileManager.createDirectory(
                    at: staging.appendingPathComponent(relative, isDirectory: true),
                    withIntermediateDirectories: true
                )
            }
            let bodies = BackgroundWork { try Self.writeBodies(of: build, into: staging, display: display) }
            let indexOutcome = Result {
                let index = try MockSetIndexWriter.write(build.file, to: staging.appendingPathComponent("index.json"))
                // Beside it, the compact index a start reads instead (optional: a start rebuilds a missing one).
                CompactIndexFile.write(build.file, source: index, folder: staging)
            }
            let bodiesOutcome = bodies.wait()
            try indexOutcome.get()
            try bodiesOutcome.get()
            SetFileWrite.flush(folder: staging)
            CrashPoint.reached("staged")
            if fileManager.fileExists(atPath: destination.path) {
                // One atomic step where the file system allows (see `MockSetSwap`); the old set is removed after.
                switch try MockSetSwap.replace(destination, with: staging, retired: retired) {
                case .exchanged:
                    CrashPoint.reached("exchanged")
                    try? fileManager.removeItem(at: staging)
                case .renamed:
                    try? fileManager.removeItem(at: retired)
                }
            } else {
                try fileManager.moveItem(at: staging, to: destination)
            }
        } catch let error as MockSetWriteError {
            try? fileManager.removeItem(at: staging)
            throw error
        } catch {
            try? fileManager.removeItem(at: staging)
            throw MockSetWriteError(
                .writeFailed,
                file: display,
                message: "could not write the mock set (\(oneLine(error.localizedDescription))); nothing was changed",
                cause: error
            )
        }
    }

    /// Writes each file of `build` (`MockSetBuild.paths`) under `staging`, in path order; a `carried` file becomes a
    /// second name of the file it comes from (a merge into a set of 100,000 stubs copied every body file, and the old
    /// folder's removal then freed every one), or where `link` fails (another file system, none allowed), a copy of
    /// it, read then.
    /// - Parameter display: The set folder as the user names it (`mocks/NAME/`), for errors.
    /// - Throws: `MockSetWriteError` naming a carried file that can be neither linked nor read; what writing throws.
    static func writeBodies(
        of build: MockSetBuild,
        into staging: URL,
        display: String,
        link: (String, String) -> Int32 = FileSystem.hardLink
    ) throws {
        // A set's body files sit in a few folders: each is made once, not once per file.
        var madeFolders: Set<String> = []
        for path in build.paths.sorted() {
            let url = staging.appendingPathComponent(path, isDirectory: false)
            let folder = url.deletingLastPathComponent()
            if madeFolders.insert(folder.path).inserted {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
            let source = build.carried[path]
            if let source, link(source, url.path) == 0 { continue }
            if let data = build.files[path] {
                try SetFileWrite.write(data, to: url)
                continue
            }
            guard let source else { continue }
            let data: Data
            do {
                data = try MockSetBuild.read(carriedFrom: source)
            } catch {
                throw MockSetWriteError(
                    .writeFailed,
                    file: display + path,
                    message: "cannot read it to carry it into the merged set (\(error)); nothing was changed",
                    cause: error
                )
            }
            try SetFileWrite.write(data, to: url)
        }
    }
}
