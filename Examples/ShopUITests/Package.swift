// swift-tools-version:6.0
// An app's test package as a team would write it: typed fixtures for the shop app's API and the tests that drive a
// real mockd with them. It depends on the mockd repository by path (an app would use its URL and a version) and
// uses only what an app's UI-test target may: MockdClient and MockdTestKit, iOS 15 / macOS 12, no C.
import PackageDescription

let package = Package(
    name: "ShopUITests",
    platforms: [.macOS(.v12), .iOS(.v15)],
    dependencies: [.package(name: "mockd", path: "../..")],
    targets: [
        // The fixtures: the app's DTOs (here their test-side copies) and the stub groups built from them.
        .target(
            name: "ShopFixtures",
            dependencies: [.product(name: "MockdClient", package: "mockd")]
        ),
        // Runs on Linux and macOS: starts mockd from $MOCKD_BINARY (else builds it), then drives it as a UI test
        // target would (the "app" here is the test's own HTTP and WebSocket client).
        .testTarget(
            name: "ShopUITests",
            dependencies: [
                "ShopFixtures",
                .product(name: "MockdClient", package: "mockd"),
                .product(name: "MockdTestKit", package: "mockd"),
            ]
        ),
    ]
)
