// libFuzzer entry point, compiled into the MockdCore module by scripts/fuzz (not a SwiftPM target: libFuzzer
// brings its own main). MOCKD_FUZZ_TARGET picks what the input feeds:
//   har        HARReader.parse, then the whole compiler with hygiene (HARImporter.build)
//   scenario   scenario and mock-set files: decoding, unknown-field check, stub building, normalize rules
//   request    a raw request (method, target, headers, body): keys, canonical bodies, matching, routing, near misses
//   websocket  the RFC 6455 frame parser, fed in pieces
import Foundation
import MockdFormat

private enum FuzzTarget: String {
    case har, scenario, request, websocket

    static let current: FuzzTarget = {
        guard let name = ProcessInfo.processInfo.environment["MOCKD_FUZZ_TARGET"],
            let target = FuzzTarget(rawValue: name)
        else {
            fatalError("set MOCKD_FUZZ_TARGET to har, scenario, request or websocket")
        }
        return target
    }()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func mockdFuzzOneInput(_ pointer: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let data = Data(bytes: pointer, count: size)
    switch FuzzTarget.current {
    case .har: FuzzHarness.har(data)
    case .scenario: FuzzHarness.scenario(data)
    case .request: FuzzHarness.request(data)
    case .websocket: FuzzHarness.websocket(data)
    }
    return 0
}

enum FuzzHarness {
    static func har(_ data: Data) {
        guard let archive = try? HARReader.parse(data, fileName: "fuzz.har") else { return }
        var options = HARImportOptions()
        options.failed = data.count % 2 == 0 ? .keep : .skip
        let (build, report) = HARImporter.build(archive, options: options)
        _ = report.rendered(source: "fuzz.har", destination: "mocks/fuzz/")
        // What the importer writes must load.
        let folder = FuzzHarness.folder
        let loader = MockSetLoader(root: MockdRoot(url: folder))
        _ = try? loader.stubs(from: build.file, setName: "fuzz", folder: folder, indexName: "index.json")
    }

    static func scenario(_ data: Data) {
        _ = KnownFields.check(data, shape: KnownFields.scenario, file: "s.json")
        _ = KnownFields.check(data, shape: KnownFields.mockSet, file: "m.json")
        if let scenario = try? JSONDecoder().decode(ScenarioFile.self, from: data) {
            var problems: [ConfigError] = []
            let compiler = RecipeCompiler(root: MockdRoot(url: folder))
            for (position, entry) in (scenario.overrides ?? []).enumerated() {
                _ = compiler.compileOverride(
                    entry,
                    file: "s.json",
                    path: "overrides[\(position)]",
                    position: position,
                    problems: &problems
                )
            }
            if let normalize = scenario.normalize {
                _ = normalize.problems()
                _ = RequestNormalizer(normalize)
            }
        }
        if let set = try? JSONDecoder().decode(MockSetFile.self, from: data) {
            _ = try? MockSetLoader(root: MockdRoot(url: folder)).stubs(
                from: set,
                setName: "fuzz",
                folder: folder,
                indexName: "index.json"
            )
            if let normalize = set.normalize { _ = normalize.problems() }
        }
    }

    /// `METHOD target\nName: value\n…\n\nbody`
    static func request(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let parts = text.components(separatedBy: "\n\n")
        var lines = parts[0].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.isEmpty ? "" : lines.removeFirst()
        let pieces = requestLine.split(separator: " ", maxSplits: 1).map(String.init)
        var headers = HTTPHeaders()
        for line in lines {
            let field = line.split(separator: ":", maxSplits: 1).map(String.init)
            if field.count == 2 { headers.add(name: field[0], value: field[1]) }
        }
        var request = HTTPRequest(
            method: pieces.first ?? "GET",
            target: pieces.count > 1 ? pieces[1] : "/",
            headers: headers,
            body: Data(parts.dropFirst().joined(separator: "\n\n").utf8)
        )
        _ = SessionRouting.route(request)
        HostRouting.strip(&request)
        _ = HostRouting.host(of: request)
        _ = RequestKey(request)
        _ = BodyCanonicalizer.canonicalize(request.body, contentType: request.headers["content-type"])
        let index = FuzzHarness.index
        let key = index.key(for: request)
        _ = index.match(request, key: key)
        _ = NearMissCalculator.nearest(to: request, in: index)
        var redactor = Redactor()
        _ = redactor.redactQuery(String(request.query), entry: 0)
        _ = redactor.redactRequestBody(request.body, contentType: request.headers["content-type"], entry: 0)
        _ = redactor.redactResponseBody(request.body, mimeType: request.headers["content-type"], entry: 0)
        _ = Template.parse(request.body)?.render(TemplateContext(request: request, call: 1))
    }

    static func websocket(_ data: Data) {
        var parser = WebSocketFrameParser(maxMessageBytes: 1 << 20)
        var offset = 0
        let bytes = [UInt8](data)
        // Feed in pieces whose sizes come from the input itself, so frames straddle reads.
        while offset < bytes.count {
            let step = max(1, Int(bytes[offset] % 17))
            let end = min(bytes.count, offset + step)
            let events = bytes[offset..<end].withUnsafeBytes { parser.feed($0) }
            if events.contains(where: { if case .failure = $0 { true } else { false } }) { return }
            offset = end
        }
    }

    static let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("mockd-fuzz-\(getpid())")

    /// A small index with normalisation rules, host keys and a body-keyed stub, so matching code paths run.
    static let index: StubIndex = {
        let rules = RequestNormalization(
            ignoreQuery: ["_", "utm_*"],
            queryValues: [
                .init(name: "token", placeholder: "token"), .init(pattern: "^[0-9]{10}$", placeholder: "ts"),
            ],
            ignoreBodyFields: ["requestId", "a.b[].c"],
            bodyValues: [.init(name: "password", placeholder: "password")]
        )
        let stubs = [
            Stub(
                id: "a",
                setName: "f",
                key: RequestKey(method: "GET", rawPath: "/v1/items", rawQuery: "page=1"),
                responses: [MockResponse(status: 200)]
            ),
            Stub(
                id: "b",
                setName: "f",
                key: RequestKey(method: "GET", rawPath: "/v1/items", rawQuery: "", host: "api.test"),
                responses: [MockResponse(status: 200)]
            ),
            Stub(
                id: "c",
                setName: "f",
                key: RequestKey(method: "POST", rawPath: "/login", rawQuery: ""),
                body: BodyCanonicalizer.canonicalize(
                    Data(#"{"user":"a","password":"{{password}}"}"#.utf8),
                    contentType: "application/json"
                ),
                bodyContentType: "application/json",
                responses: [MockResponse(status: 200)]
            ),
        ]
        return StubIndex(layers: [stubs], normalizer: RequestNormalizer(rules))
    }()
}
