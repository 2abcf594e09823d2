public import Foundation

/// The folder holding `mocks/` and `configs/`: `--root`, else `$MOCKD_ROOT`, else the current directory.
public struct MockdRoot: Sendable {
    public let url: URL

    public init(url: URL) {
        self.url = url.standardizedFileURL
    }

    /// Resolves the root from an explicit option, the environment, then the working directory.
    public static func resolve(
        option: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> MockdRoot
    {
        let path = option ?? environment["MOCKD_ROOT"] ?? FileManager.default.currentDirectoryPath
        return MockdRoot(url: URL(fileURLWithPath: path, isDirectory: true))
    }

    public var mocksURL: URL { url.appendingPathComponent("mocks", isDirectory: true) }
    public var configsURL: URL { url.appendingPathComponent("configs", isDirectory: true) }

    /// The folder of mock set `name`.
    public func setURL(_ name: String) -> URL { mocksURL.appendingPathComponent(name, isDirectory: true) }

    /// `configs/NAME.json`, or `name` itself when it is a path to a `.json` file.
    public func configURL(_ name: String) -> URL {
        if name.hasSuffix(".json") || name.contains("/") {
            return URL(
                fileURLWithPath: name,
                relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            )
            .standardizedFileURL
        }
        return configsURL.appendingPathComponent("\(name).json")
    }

    /// A path for messages: relative to the root when inside it.
    public func display(_ fileURL: URL) -> String {
        let base = url.path.hasSuffix("/") ? url.path : url.path + "/"
        let path = fileURL.standardizedFileURL.path
        return path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path
    }

    /// Whether `name` is a safe mock set or scenario name: letters, digits, `.`, `_`, `-`, not starting with `.`.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "."), name.utf8.count <= 128 else { return false }
        return name.utf8.allSatisfy {
            URLEncoding.isUnreserved($0) && $0 != UInt8(ascii: "~")
        }
    }
}
