// swift-tools-version:6.0
import PackageDescription

// The floor is the Swift of Xcode 16.0 (6.0): nothing newer is used (scripts/check-swift-floor). MemberImportVisibility
// became an upcoming feature in Swift 6.1 (SE-0444), so 6.0 builds without that check.
let baseSwiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]
#if compiler(>=6.1)
let swiftSettings = baseSwiftSettings + [.enableUpcomingFeature("MemberImportVisibility")]
#else
let swiftSettings = baseSwiftSettings
#endif

// Two floors in one package. SwiftPM's `platforms` is package-wide, so it holds the client libraries' floor, what an
// app and its UI-test target may depend on: iOS 15 / macOS 12 (MockdFormat, MockdClient, MockdTestKit,
// MockdAppRedirect: Foundation only, no C, no Synchronization). The daemon's targets are raised to macOS 13 on a
// Mac (Regex, Duration and clocks), the first release with all they use; Synchronization (macOS 15) sits behind
// MockdPlatform, whose Darwin side needs nothing newer. On Linux neither setting applies. The raise is an unsafe flag:
// SwiftPM accepts it in this package's own builds and in products that do not contain those targets, which is all
// an app depends on.
#if arch(arm64)
let hostArchitecture = "arm64"
#else
let hostArchitecture = "x86_64"
#endif
let daemonFloor: [SwiftSetting] = [
    .unsafeFlags(["-target", "\(hostArchitecture)-apple-macosx13.0"], .when(platforms: [.macOS]))
]
let daemonSettings = swiftSettings + daemonFloor
// On Linux the daemon is linked by lld with its relative relocations packed (DT_RELR): the ~82,000 pointer fixups of a
// binary with the Swift runtime and Foundation linked in take 16 KB instead of 2 MB that the loader reads at every
// start and keeps resident, and lld's read-only segment keeps constant data out of the code's pages. Idle RSS with a
// tiny set: 27.2 -> 24.0 MiB (docs/BENCHMARKS.md). The loader of glibc 2.36 and later applies packed relocations
// (Debian 12, Ubuntu 24.04); an older glibc only gets lld, as a binary it cannot load would be no binary at all.
#if os(Linux)
import Glibc
let glibcLoadsPackedRelocations: Bool = {
    // "glibc 2.36"
    var text = [CChar](repeating: 0, count: 64)
    guard confstr(Int32(_CS_GNU_LIBC_VERSION), &text, text.count) > 0 else { return false }
    let words = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let version = words.split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
    return version.count >= 2 && (version[0], version[1]) >= (2, 36)
}()
#else
let glibcLoadsPackedRelocations = false
#endif
let daemonLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(["-target", "\(hostArchitecture)-apple-macosx13.0"], .when(platforms: [.macOS])),
    .unsafeFlags(
        ["-use-ld=lld"] + (glibcLoadsPackedRelocations ? ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"] : []),
        .when(platforms: [.linux])
    ),
]

let package = Package(
    name: "mockd",
    platforms: [.macOS(.v12), .iOS(.v15)],
    products: [
        .executable(name: "mockd", targets: ["mockd"]),
        .library(name: "MockdCore", targets: ["MockdCore"]),
        // The file formats (scenario, mock set, runtime stub), Foundation only: what MockdClient encodes.
        .library(name: "MockdFormat", targets: ["MockdFormat"]),
        // The control API's contract: its route table, request and answer types, error codes, OpenAPI document and
        // MCP tools, shared by the daemon, MockdClient and `mockd mcp`. Foundation only.
        .library(name: "MockdControl", targets: ["MockdControl"]),
        // What an XCUITest (or Linux XCTest) target links to steer a running mockd: Foundation only.
        .library(name: "MockdClient", targets: ["MockdClient"]),
        // A UI-test target's kit on top of MockdClient: per-test sessions, journal attachments, explained verifies.
        .library(name: "MockdTestKit", targets: ["MockdTestKit"]),
        // For the app under test (debug builds): its URLSession requests go to mockd with the session header.
        .library(name: "MockdAppRedirect", targets: ["MockdAppRedirect"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),
        .target(name: "CMicroHTTPD", dependencies: ["CLibMicroHTTPD"]),
        // OpenSSL libcrypto: SHA-1 for the WebSocket handshake and the PEM check of
        // --tls-cert/--tls-key (Homebrew openssl@3 on a Mac); a well-kept library rather than our own code.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CCompression",
            pkgConfig: "libbrotlidec",
            providers: [.apt(["zlib1g-dev", "libbrotli-dev"]), .brew(["brotli"])]
        ),
        // libcurl: the upstream client of `mockd record` and capture-on-miss (connection reuse, TLS, timeouts).
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // libyaml: OpenAPI documents written in YAML (import-openapi, check --openapi, serve --openapi).
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]),
        // MockdPlatform's C side: the calls whose spelling differs between Linux and Darwin, one function each.
        .target(name: "CPlatform"),
        // ICU's regular-expression calls in macOS's libicucore, which ships without headers (BoundedRegex's Darwin
        // side; on Linux it uses the toolchain's _FoundationICU, the ICU Foundation itself runs on).
        .systemLibrary(name: "CDarwinICU"),
        // The file formats, once: Codable types and known fields. Foundation only (no C, no Synchronization), so
        // that MockdClient, and with it an XCUITest target, can use them.
        .target(name: "MockdFormat", swiftSettings: swiftSettings),
        // The control API, once: the route table, the Codable request and answer types, the error codes, and what is
        // made from them (the OpenAPI document, the MCP tools). Foundation only, for MockdClient as for the daemon.
        .target(name: "MockdControl", dependencies: ["MockdFormat"], swiftSettings: swiftSettings),
        // The daemon's platform seam, one file per concern: lock and atomics (Synchronization on Linux), the
        // WebSocket event loop (poll), sockets, file-system flush and exchange, memory trimming, SHA-1 (libcrypto),
        // looking at another process, file locks, regular expressions on a budget (ICU). Only this target and
        // CPlatform may use a platform API (scripts/check-layers; docs/PLATFORMS.md lists every Darwin-only line).
        .target(
            name: "MockdPlatform",
            dependencies: [
                "CPlatform", "CCrypto", .target(name: "CDarwinICU", condition: .when(platforms: [.macOS])),
            ],
            swiftSettings: daemonSettings,
            linkerSettings: [.linkedLibrary("_FoundationICU", .when(platforms: [.linux]))]
        ),
        // zlib and brotli for HAR bodies recorded still compressed (import only). The dashboard's files are compiled
        // into the binary (`PackageResources.index_html`, …: no resource bundle, so one binary still holds it all).
        .target(
            name: "MockdCore",
            dependencies: ["MockdFormat", "MockdControl", "MockdPlatform", "CCompression"],
            resources: [.embedInCode("ControlAPI/Dashboard")],
            swiftSettings: daemonSettings
        ),
        // JSON Schema draft 4 / OpenAPI 3.0 / 2020-12 validation, our own (no Swift library can be fetched here).
        .target(name: "MockdSchema", dependencies: ["MockdFormat", "MockdPlatform"], swiftSettings: daemonSettings),
        .target(
            name: "MockdServer",
            dependencies: ["MockdFormat", "MockdPlatform", "MockdCore", "CMicroHTTPD", "CCrypto", "CCurl"],
            swiftSettings: daemonSettings
        ),
        // OpenAPI 3.0 / 3.1: reading (JSON, YAML through libyaml), import as a scenario, contract checks.
        .target(
            name: "MockdOpenAPI",
            dependencies: ["MockdFormat", "MockdCore", "MockdSchema", "CYAML"],
            swiftSettings: daemonSettings
        ),
        .target(name: "MockdClient", dependencies: ["MockdFormat", "MockdControl"], swiftSettings: swiftSettings),
        .target(name: "MockdTestKit", dependencies: ["MockdClient"], swiftSettings: swiftSettings),
        // Foundation only, and empty unless MOCKD_REDIRECT is defined: debug builds only, so a release build of an
        // app can never send its requests to a mock.
        .target(
            name: "MockdAppRedirect",
            swiftSettings: swiftSettings + [.define("MOCKD_REDIRECT", .when(configuration: .debug))]
        ),
        .executableTarget(
            name: "mockd",
            dependencies: [
                "MockdFormat", "MockdControl", "MockdPlatform", "MockdCore", "MockdServer", "MockdOpenAPI",
                "MockdSchema",
            ],
            swiftSettings: daemonSettings,
            linkerSettings: daemonLinkerSettings
        ),
        // Shared by the test targets: the built binary, a curl client, the corpus location.
        .target(
            name: "MockdTestSupport",
            dependencies: ["MockdFormat", "MockdPlatform", "MockdCore", "CCrypto"],
            path: "Tests/MockdTestSupport",
            swiftSettings: daemonSettings
        ),
        .testTarget(name: "MockdFormatTests", dependencies: ["MockdFormat"], swiftSettings: swiftSettings),
        // The control API's contract: the OpenAPI document (current, valid), the schemas against real answers.
        .testTarget(
            name: "MockdControlTests",
            dependencies: [
                "MockdControl", "MockdFormat", "MockdCore", "MockdSchema", "MockdOpenAPI", "MockdTestSupport",
            ],
            swiftSettings: daemonSettings
        ),
        .testTarget(name: "MockdPlatformTests", dependencies: ["MockdPlatform"], swiftSettings: daemonSettings),
        .testTarget(
            name: "MockdSchemaTests",
            dependencies: ["MockdSchema", "MockdOpenAPI", "MockdFormat", "MockdTestSupport"],
            swiftSettings: daemonSettings
        ),
        // Fixtures/: golden files read beside the test sources (`#filePath`), not bundled.
        .testTarget(
            name: "MockdCoreTests",
            dependencies: ["MockdFormat", "MockdControl", "MockdPlatform", "MockdCore", "MockdTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: daemonSettings
        ),
        .testTarget(
            name: "MockdServerTests",
            dependencies: ["MockdFormat", "MockdPlatform", "MockdServer", "MockdCore", "MockdTestSupport"],
            swiftSettings: daemonSettings
        ),
        // `mockd` too: the command line is parsed and its help pinned in process (`@testable import mockd`).
        .testTarget(
            name: "MockdCLITests",
            dependencies: [
                "mockd", "MockdFormat", "MockdControl", "MockdPlatform", "MockdCore", "MockdOpenAPI", "MockdSchema",
                "MockdTestSupport",
            ],
            swiftSettings: daemonSettings
        ),
        .testTarget(
            name: "MockdClientTests",
            dependencies: ["MockdClient", "MockdControl", "MockdTestKit", "MockdAppRedirect", "MockdTestSupport"],
            swiftSettings: daemonSettings
        ),
    ]
)
