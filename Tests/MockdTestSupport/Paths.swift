public import Foundation
import MockdCore

/// Where tests find the package, the built `mockd` binary and the shared HAR/WireMock corpus.
public enum Paths {
    /// The package root (the folder holding Package.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `mockd` executable: `$MOCKD_BIN`, else next to the running test bundle, else `.build/debug/mockd`.
    public static var mockdBinary: URL {
        if let path = ProcessInfo.processInfo.environment["MOCKD_BIN"] { return URL(fileURLWithPath: path) }
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("mockd")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return packageRoot.appendingPathComponent(".build/debug/mockd")
    }

    /// The corpus folder: `$MOCKD_CORPUS`, else `../shared/corpus` beside the package; `nil` when absent.
    public static var corpus: URL? {
        let url =
            ProcessInfo.processInfo.environment["MOCKD_CORPUS"].map { URL(fileURLWithPath: $0) }
            ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// The corpus HAR files, sorted by name; prints a visible skip message and returns `[]` when absent.
    public static func corpusHARFiles(for test: String) -> [URL] {
        guard let corpus else {
            Skip.missing(.corpus, test: test, "HAR corpus not found (set MOCKD_CORPUS or place it at ../shared/corpus)")
            return []
        }
        let folder = corpus.appendingPathComponent("har")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".har") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// The corpus WireMock folder (`wiremock/`); prints a visible skip message and returns `nil` when absent.
    public static func corpusWireMockFolder(for test: String) -> URL? {
        guard let folder = corpus?.appendingPathComponent("wiremock"),
            FileManager.default.fileExists(atPath: folder.path)
        else {
            Skip.missing(
                .corpus,
                test: test,
                "WireMock corpus not found (set MOCKD_CORPUS or place it at ../shared/corpus)"
            )
            return nil
        }
        return folder
    }

    /// A fresh root holding the bundled mock sets and `configs/s.json` with `scenario` (served as `--config s`);
    /// removed by the caller.
    public static func makeRoot(scenario: String) throws -> URL {
        let root = makeTemporaryDirectory()
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("configs"),
            withIntermediateDirectories: true
        )
        try copyBundledSets(into: root)
        try scenario.write(to: root.appendingPathComponent("configs/s.json"), atomically: true, encoding: .utf8)
        return root
    }

    /// Copies the bundled mock sets (`mocks/`) into `root`, without mockd's caches (`index.cache` and its temporary
    /// siblings): daemons of tests running at the same time write those in the package's sets, and a copy taken
    /// meanwhile could hold one half-renamed; each root starts without, as a fresh clone does.
    public static func copyBundledSets(into root: URL) throws {
        let source = packageRoot.appendingPathComponent("mocks")
        let destination = root.appendingPathComponent("mocks")
        let walker = FileManager.default.enumerator(at: source, includingPropertiesForKeys: [.isDirectoryKey])
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        while let url = walker?.nextObject() as? URL {
            let relative = String(url.path.dropFirst(source.path.count + 1))
            if isCacheFile(mocksRelativePath: relative) { continue }
            let target = destination.appendingPathComponent(relative)
            if (try url.resourceValues(forKeys: [.isDirectoryKey])).isDirectory == true {
                try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            } else {
                try FileManager.default.copyItem(at: url, to: target)
            }
        }
    }

    /// Whether `path`, relative to a root's `mocks/` (`chat/index.cache`), is mockd's cache of a set's index
    /// (`CompactIndexFile`), which a start writes beside `index.json`: not a user's file.
    public static func isCacheFile(mocksRelativePath path: String) -> Bool {
        let parts = path.split(separator: "/", maxSplits: 1)
        return parts.count == 2 && CompactIndexFile.isCacheFile(String(parts[1]))
    }

    /// A fresh temporary folder, removed by the caller.
    public static func makeTemporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mockd-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
