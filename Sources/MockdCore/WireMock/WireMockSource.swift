public import Foundation

/// The WireMock mapping files to import and the `__files/` folder their `bodyFileName`s resolve in.
///
/// - A file: that file; `__files/` is looked for next to the nearest enclosing `mappings/` folder.
/// - A folder with a `mappings/` subfolder (WireMock's root layout): every `*.json` under `mappings/`, bodies
///   in the folder's `__files/`.
/// - A folder called `mappings`: every `*.json` under it, bodies in the sibling `__files/`.
/// - Any other folder: every `*.json` under it (except inside `__files/`), bodies in its `__files/` if any.
///
/// Hidden files and folders are skipped; files are in path order, so imports are reproducible.
public struct WireMockSource: Sendable {
    /// One mapping file: where it is and how it is named in messages.
    public struct File: Sendable {
        public let url: URL
        /// The path as given, or `folder/relative/path.json` for files found in a folder.
        public let display: String
        /// The path relative to the folder scanned, without `.json` (the file name alone for a file argument);
        /// imported stub ids start with it.
        public let stem: String
    }

    public let files: [File]
    /// The `__files/` folder, when there is one.
    public let bodiesFolder: URL?
    /// How messages name the `__files/` folder (`wiremock/__files/`).
    public let bodiesDisplay: String?

    /// - Throws: `WireMockImportError.fileNotFound` when `path` does not exist or a folder holds no `*.json`.
    public static func locate(_ path: String) throws(WireMockImportError) -> WireMockSource {
        let fileManager = FileManager.default
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw WireMockImportError(.fileNotFound, file: path, message: "no such file or folder")
        }
        let base = path.hasSuffix("/") ? String(path.dropLast()) : path
        guard isDirectory.boolValue else {
            var bodies: URL?
            var bodiesDisplay: String?
            var folder = url.deletingLastPathComponent()
            var folderDisplay = (path as NSString).deletingLastPathComponent
            while folder.path != "/" {
                if folder.lastPathComponent == "mappings" {
                    bodies = existingFolder(folder.deletingLastPathComponent().appendingPathComponent("__files"))
                    if let bodies {
                        let parent = (folderDisplay as NSString).deletingLastPathComponent
                        bodiesDisplay =
                            (folderDisplay as NSString).lastPathComponent == "mappings"
                            ? (parent.isEmpty ? "" : parent + "/") + "__files/" : bodies.path + "/"
                    }
                    break
                }
                folder = folder.deletingLastPathComponent()
                folderDisplay = (folderDisplay as NSString).deletingLastPathComponent
            }
            let stem = url.deletingPathExtension().lastPathComponent
            return WireMockSource(
                files: [File(url: url, display: path, stem: stem)],
                bodiesFolder: bodies,
                bodiesDisplay: bodiesDisplay
            )
        }
        let scanned: URL
        let scannedDisplay: String
        let bodies: URL?
        let bodiesDisplay: String?
        if let mappings = existingFolder(url.appendingPathComponent("mappings")) {
            scanned = mappings
            scannedDisplay = base + "/mappings"
            bodies = existingFolder(url.appendingPathComponent("__files"))
            bodiesDisplay = bodies.map { _ in base + "/__files/" }
        } else if url.lastPathComponent == "mappings" {
            scanned = url
            scannedDisplay = base
            bodies = existingFolder(url.deletingLastPathComponent().appendingPathComponent("__files"))
            bodiesDisplay = bodies.map { _ in
                ((base as NSString).deletingLastPathComponent as NSString).appendingPathComponent("__files") + "/"
            }
        } else {
            scanned = url
            scannedDisplay = base
            bodies = existingFolder(url.appendingPathComponent("__files"))
            bodiesDisplay = bodies.map { _ in base + "/__files/" }
        }
        var relativePaths: [String] = []
        collect(scanned, relative: "", into: &relativePaths)
        guard !relativePaths.isEmpty else {
            throw WireMockImportError(.fileNotFound, file: path, message: "no *.json mapping files in this folder")
        }
        let files = relativePaths.sorted().map { relative in
            File(
                url: scanned.appendingPathComponent(relative),
                display: scannedDisplay + "/" + relative,
                stem: String(relative.dropLast(5))
            )
        }
        return WireMockSource(files: files, bodiesFolder: bodies, bodiesDisplay: bodiesDisplay)
    }

    private static func existingFolder(_ url: URL) -> URL? {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? url : nil
    }

    private static func collect(_ folder: URL, relative: String, into paths: inout [String]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where !name.hasPrefix(".") && name != "__files" {
            let url = folder.appendingPathComponent(name)
            let path = relative.isEmpty ? name : relative + "/" + name
            if existingFolder(url) != nil {
                collect(url, relative: path, into: &paths)
            } else if name.hasSuffix(".json") {
                paths.append(path)
            }
        }
    }
}
