import Foundation
import MockdTestKit

/// Where the mockd repository is: four folders above this file (Examples/ShopUITests/Tests/ShopUITests/).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The example's own mock root: `configs/shop.json` and the `shop` set.
let shopRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("mockd")

/// The mockd binary: `$MOCKD_BINARY`, else the repository's debug build, built first when it is missing
/// (`swift build --product mockd` at the repository root).
func mockdBinary() throws -> URL {
    if let path = ProcessInfo.processInfo.environment[MockdDaemon.binaryEnvironmentKey], !path.isEmpty {
        return URL(fileURLWithPath: path)
    }
    let built = repositoryRoot.appendingPathComponent(".build/debug/mockd")
    if !FileManager.default.isExecutableFile(atPath: built.path) {
        let swift = Process()
        swift.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        swift.arguments = ["swift", "build", "--package-path", repositoryRoot.path, "--product", "mockd"]
        try swift.run()
        swift.waitUntilExit()
        guard swift.terminationStatus == 0 else {
            throw BuildFailure(message: "swift build --product mockd failed (exit \(swift.terminationStatus))")
        }
    }
    return built
}

/// A daemon serving the example's root with the `shop` scenario, for one test.
func startShopDaemon() async throws -> MockdDaemon {
    try await MockdDaemon.start(binary: try mockdBinary(), root: shopRoot, scenario: "shop")
}

/// Runs `body` with a daemon of its own, stopped afterwards.
func withShopDaemon(_ body: (MockdDaemon) async throws -> Void) async throws {
    let daemon = try await startShopDaemon()
    defer { daemon.stop() }
    try await body(daemon)
}

/// `swift build --product mockd` failed.
struct BuildFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
