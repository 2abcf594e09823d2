public import Foundation
import MockdFormat

/// One side of a `mockd diff`: a mock set folder (holding `index.json`) or a HAR file, read as a `MockSetBuild`.
///
/// A HAR is compiled by the importer with its defaults (hygiene on, the same placeholders an import writes), so
/// that a recording and a set imported from it compare equal.
public enum MockSetSource {
    /// Reads `url`.
    ///
    /// - Parameters:
    ///   - url: A folder with `index.json`, or a `.har` file (any other file is read as a HAR).
    ///   - display: How to name it in errors.
    ///   - options: The import options for a HAR (default: `HARImportOptions()`).
    /// - Throws: `ConfigError` for an unreadable index, `HARImportError` for a file that is not a HAR.
    public static func read(
        _ url: URL,
        display: String,
        options: HARImportOptions = HARImportOptions()
    ) throws -> MockSetBuild {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return try readSet(url, display: display)
        }
        var compiler = HARCompiler(options: options, harDirectory: url.deletingLastPathComponent())
        _ = try HARStreamReader().read(contentsOf: url, displayName: display, progress: nil) { compiler.add($0) }
        return compiler.finish().0
    }

    /// The set at `folder`: its index and the body files it names.
    static func readSet(_ folder: URL, display: String) throws -> MockSetBuild {
        let indexURL = folder.appendingPathComponent("index.json")
        let file = try MockSetFastDecoder.decodeIndex(
            at: indexURL,
            display: display.hasSuffix("/") ? display + "index.json" : display + "/index.json",
            missing: "'\(display)' is neither a mock set folder (no index.json) nor a HAR file"
        )
        var files: [String: Data] = [:]
        let indexDisplay = display.hasSuffix("/") ? display + "index.json" : display + "/index.json"
        // Read as serving reads them (`BodyFileReader`): the same paths refused with the same words. A file that
        // cannot be read is a broken set, never an API change: a diff must not report it as one.
        let reader = BodyFileReader(folder: folder)
        for (name, jsonPath) in file.namedBodyFiles {
            files[name] = try reader.read(name, indexName: indexDisplay, jsonPath: jsonPath)
        }
        return MockSetBuild(file: file, files: files)
    }
}
