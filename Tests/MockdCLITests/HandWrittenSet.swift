import Foundation
import MockdTestSupport

/// A mock set written by hand into a fresh root (`mocks/<name>/index.json` plus body files), for live tests that
/// start the real daemon on it; the root is removed when the value is dropped.
final class HandWrittenSet {
    let root: URL
    let name: String

    /// - Parameters:
    ///   - index: The index file's JSON object.
    ///   - bodies: Body files by path relative to the set folder (`bodies/a.bin`).
    init(_ name: String = "web", index: [String: Any], bodies: [String: Data] = [:]) throws {
        root = Paths.makeTemporaryDirectory()
        self.name = name
        let folder = root.appendingPathComponent("mocks/\(name)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("bodies"),
            withIntermediateDirectories: true
        )
        try JSONSerialization.data(withJSONObject: index, options: [.prettyPrinted, .sortedKeys])
            .write(to: folder.appendingPathComponent("index.json"))
        for (path, data) in bodies { try data.write(to: folder.appendingPathComponent(path)) }
    }

    /// The set's folder.
    var folder: URL { root.appendingPathComponent("mocks/\(name)") }

    /// The real daemon serving this set on a free loopback port.
    func start(_ extra: [String] = []) throws -> RunningDaemon {
        try RunningDaemon(["--set", name, "--root", root.path, "--port", "0", "--quiet"] + extra)
    }

    deinit { try? FileManager.default.removeItem(at: root) }
}
