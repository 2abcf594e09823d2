// swift-tools-version:6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "mockd",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "mockd", targets: ["mockd"]),
        .library(name: "MockdCore", targets: ["MockdCore"]),
        // The file formats (scenario, mock set, runtime stub), Foundation only: what MockdClient encodes.
        .library(name: "MockdFormat", targets: ["MockdFormat"]),
        // What an XCUITest (or Linux XCTest) target links to steer a running mockd: Foundation only.
        .library(name: "MockdClient", targets: ["MockdClient"]),
        // A UI-test target's kit on top of MockdClient: per-test sessions, journal attachments, explained verifies.
        .library(name: "MockdTestKit", targets: ["MockdTestKit"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .target(name: "CMicroHTTPD", dependencies: ["CLibMicroHTTPD"]),
        // SHA-1 for the WebSocket handshake only; a well-kept library rather than our own hash.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCompression", providers: [.apt(["zlib1g-dev", "libbrotli-dev"])]),
        // libcurl: the upstream client of `mockd record` and capture-on-miss (connection reuse, TLS, timeouts).
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // libyaml: OpenAPI documents written in YAML (import-openapi, check --openapi, serve --openapi).
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // epoll and eventfd headers (the NIO CNIOLinux pattern), for the WebSocket reactor.
        .systemLibrary(name: "CLinux"),
        // The file formats, once: Codable types and known fields. Foundation only (no C, no Synchronization), so
        // that MockdClient, and with it an XCUITest target, can use them.
        .target(name: "MockdFormat", swiftSettings: swiftSettings),
        // zlib and brotli for HAR bodies recorded still compressed (import only).
        .target(name: "MockdCore", dependencies: ["MockdFormat", "CCompression"], swiftSettings: swiftSettings),
        // JSON Schema draft 4 / OpenAPI 3.0 / 2020-12 validation, our own (no Swift library can be fetched here).
        .target(name: "MockdSchema", dependencies: ["MockdFormat"], swiftSettings: swiftSettings),
        .target(
            name: "MockdServer",
            dependencies: ["MockdFormat", "MockdCore", "CMicroHTTPD", "CCrypto", "CLinux", "CCurl"],
            swiftSettings: swiftSettings
        ),
        // OpenAPI 3.0 / 3.1: reading (JSON, YAML through libyaml), import as a scenario, contract checks.
        .target(
            name: "MockdOpenAPI",
            dependencies: ["MockdFormat", "MockdCore", "MockdSchema", "CYAML"],
            swiftSettings: swiftSettings
        ),
        .target(name: "MockdClient", dependencies: ["MockdFormat"], swiftSettings: swiftSettings),
        .target(name: "MockdTestKit", dependencies: ["MockdClient"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "mockd",
            dependencies: ["MockdFormat", "MockdCore", "MockdServer", "MockdOpenAPI"],
            swiftSettings: swiftSettings
        ),
        // Shared by the test targets: the built binary, a curl client, the corpus location.
        .target(
            name: "MockdTestSupport",
            dependencies: ["MockdFormat", "MockdCore", "CCrypto"],
            path: "Tests/MockdTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "MockdFormatTests", dependencies: ["MockdFormat"], swiftSettings: swiftSettings),
        .testTarget(
            name: "MockdSchemaTests",
            dependencies: ["MockdSchema", "MockdOpenAPI", "MockdFormat", "MockdTestSupport"],
            swiftSettings: swiftSettings
        ),
        // Fixtures/: golden files read beside the test sources (`#filePath`), not bundled.
        .testTarget(
            name: "MockdCoreTests",
            dependencies: ["MockdFormat", "MockdCore", "MockdTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MockdServerTests",
            dependencies: ["MockdFormat", "MockdServer", "MockdCore", "MockdTestSupport"],
            swiftSettings: swiftSettings
        ),
        // `mockd` too: the command line is parsed and its help pinned in process (`@testable import mockd`).
        .testTarget(
            name: "MockdCLITests",
            dependencies: ["mockd", "MockdFormat", "MockdCore", "MockdOpenAPI", "MockdSchema", "MockdTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MockdClientTests",
            dependencies: ["MockdClient", "MockdTestKit", "MockdTestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)
