import Foundation
import MockdFormat
import Testing

@testable import MockdCore

/// The placeholder language in process: every helper's exact output on a fixed clock and seed, conditionals, raw
/// blocks, JSON value types, and the problems that keep a template from loading.
struct TemplateHelperTests {
    /// 2026-11-29T20:05:09.250Z, a Sunday.
    static let now = Date(timeIntervalSince1970: 1_795_982_709.25)

    static func render(
        _ text: String,
        request: HTTPRequest = HTTPRequest(method: "GET", target: "/"),
        seed: UInt64 = 1,
        stub: String = "s",
        call: Int = 1,
        jsonValues: Bool = false
    ) throws -> String {
        let template = try #require(Template.parse(Data(text.utf8), jsonValues: jsonValues), "no template in \(text)")
        #expect(template.problems.isEmpty, "\(template.problems)")
        let context = TemplateContext(request: request, call: call, now: now)
        context.seed = { seed }
        context.stubID = stub
        return String(decoding: template.render(context), as: UTF8.self)
    }

    static func problems(_ text: String) -> [String] {
        Template.parse(Data(text.utf8))?.problems.map(\.message) ?? []
    }

    @Test func nowTakesAnOffsetAFormatAndAZone() throws {
        #expect(try Self.render("{{now}}") == "2026-11-29T20:05:09Z")
        #expect(
            try Self.render("{{now.iso}}|{{now.http}}|{{now.epoch}}|{{now.epochMs}}")
                == "2026-11-29T20:05:09Z|Sun, 29 Nov 2026 20:05:09 GMT|1795982709|1795982709250"
        )
        #expect(try Self.render(#"{{now offset="+1d"}}"#) == "2026-11-30T20:05:09Z")
        #expect(try Self.render(#"{{now offset="-90m" format="iso-ms"}}"#) == "2026-11-29T18:35:09.250Z")
        #expect(try Self.render(#"{{now offset="+1h30m" format="http"}}"#) == "Sun, 29 Nov 2026 21:35:09 GMT")
        #expect(try Self.render(#"{{now offset='+1d' format='date'}}"#) == "2026-11-30")
        #expect(try Self.render(#"{{now format="epoch" offset="+5m"}}"#) == "1795983009")
        #expect(try Self.render(#"{{now.epochMs offset="+1s"}}"#) == "1795982710250")
        // Calendar months keep the day where the month has it, else its last day.
        #expect(try Self.render(#"{{now offset="+3M" format="date"}}"#) == "2027-02-28")
        #expect(try Self.render(#"{{now offset="-1y+2w" format="date"}}"#) == "2025-12-13")
        #expect(try Self.render(#"{{now zone="+05:30"}}"#) == "2026-11-30T01:35:09+05:30")
        #expect(
            try Self.render(#"{{now zone="Europe/Paris" format="yyyy-MM-dd HH:mm EEEE"}}"#) == "2026-11-29 21:05 Sunday"
        )
        #expect(try Self.render(#"{{now format="dd MMM yyyy"}}"#) == "29 Nov 2026")
        // Inside a JSON string, the quotes are escaped: `\"` reads as a quote.
        #expect(try Self.render(#"{"at": "{{now offset=\"+2d\" format=\"date\"}}"}"#) == #"{"at": "2026-12-01"}"#)
    }

    @Test func requestHelpersReadTheRequest() throws {
        let request = HTTPRequest(
            method: "POST",
            target: "/v1/users/a%20b/orders?q=x+y&tag=1&tag=2",
            headers: HTTPHeaders([("X-Device", "iPhone"), ("Cookie", "a=1; sid=abc")]),
            body: Data(#"{"user": {"id": 7, "tags": ["p", "q"]}, "ok": true}"#.utf8)
        )
        let text = """
            {{request.method}} {{request.path}} {{request.url}} {{request.query}} {{request.path[2]}} \
            {{request.query.q}} {{request.query.tag[1]}} {{request.query.none}}|{{request.header.x-device}} \
            {{request.cookie.sid}} {{request.json.user.id}} {{request.json.user.tags[1]}} {{request.json.user.tags}}
            """
        #expect(
            try Self.render(text, request: request)
                == #"POST /v1/users/a%20b/orders /v1/users/a%20b/orders?q=x+y&tag=1&tag=2 q=x+y&tag=1&tag=2 a b x y 2 |iPhone abc 7 q ["p","q"]"#
        )
    }

    @Test func conditionalsChooseABranch() throws {
        let request = HTTPRequest(
            method: "POST",
            target: "/x?debug=1&plan=pro&off=false",
            body: Data(#"{"items": [1, 2, 3], "none": [], "kind": "premium", "count": 12}"#.utf8)
        )
        func render(_ text: String) throws -> String { try Self.render(text, request: request) }
        #expect(try render("{{#if request.query.debug}}on{{else}}off{{/if}}") == "on")
        #expect(try render("{{#if request.query.off}}on{{else}}off{{/if}}") == "off")
        #expect(try render("{{#if request.query.missing}}on{{/if}}") == "")
        #expect(try render("{{#unless request.json.none}}empty{{/unless}}") == "empty")
        #expect(
            try render(
                #"{{#if request.query.plan == "pro"}}P{{else if request.query.plan == "team"}}T{{else}}F{{/if}}"#
            ) == "P"
        )
        #expect(
            try render(#"{{#if request.json.count > 9}}big{{/if}}{{#if request.json.count <= 12}}!{{/if}}"#) == "big!"
        )
        #expect(try render(#"{{#if request.json.count == 12.0}}same{{/if}}"#) == "same")
        #expect(try render(#"{{#if request.json.kind contains "prem"}}★{{/if}}"#) == "★")
        #expect(try render(#"{{#if request.json.kind != request.query.plan}}differ{{/if}}"#) == "differ")
        #expect(
            try render(
                #"{{#if request.json.items}}[{{#if request.query.debug}}{{request.json.items[0]}}{{/if}}]{{/if}}"#
            )
                == "[1]"
        )
    }

    @Test func jsonValuesKeepTheirTypes() throws {
        let text =
            #"{"n": "{{fake.int min=5 max=5}}", "b": "{{fake.bool key=\"x\"}}", "d": "{{fake.decimal min=1 max=1 places=2}}", "e": "{{now format=\"epoch\"}}", "s": "{{fake.word}} x"}"#
        let rendered = try Self.render(text, jsonValues: true)
        let object = try #require(JSONSerialization.jsonObject(with: Data(rendered.utf8)) as? [String: Any])
        #expect(object["n"] as? Int == 5)
        #expect(object["b"] is Bool)
        #expect(object["d"] as? Double == 1)
        #expect(object["e"] as? Int == 1_795_982_709)
        #expect((object["s"] as? String)?.hasSuffix(" x") == true)
        #expect(rendered.contains(#""d": 1.00"#))
    }

    @Test func rawBlocksAndBracesThatAreNoPlaceholderStayText() throws {
        #expect(
            try Self.render("a {{{{raw}}}}{{randomValue length=5}}{{{{/raw}}}} {{now.epoch}}")
                == "a {{randomValue length=5}} 1795982709"
        )
        // Rendering only the fixed fake values (at load) keeps the block as written, so it still says "as written".
        let raw = "{{{{raw}}}}{{x}}{{{{/raw}}}} {{token}}"
        #expect(
            String(decoding: Template.renderingFakeValues(in: Data(raw.utf8)), as: UTF8.self)
                == "{{{{raw}}}}{{x}}{{{{/raw}}}} mockd-token-0000000000000000"
        )
        #expect(try Self.render("{{{x}}} {{ }} {{0}} {{now.epoch}}") == "{{{x}}} {{ }} {{0}} 1795982709")
        #expect(Template.parse(Data("{ not }".utf8)) == nil)
        #expect(Template.parse(Data([0xFF, 0xD8, 0x7B, 0x7B]) + Data("token}}".utf8)) == nil)
    }

    @Test func unknownHelpersAndBadArgumentsAreProblems() {
        #expect(
            Self.problems("a {{fake.nmae}} b") == [
                "line 1: {{fake.nmae}}: unknown helper 'fake.nmae' (did you mean 'fake.name'?)"
            ]
        )
        #expect(Self.problems("x\n{{ nope }}") == ["line 2: {{nope}}: unknown helper 'nope' (did you mean 'now'?)"])
        #expect(
            Self.problems("{{request.headers.X-Id}}")
                == [
                    "line 1: {{request.headers.X-Id}}: unknown helper 'request.headers.X-Id' (did you mean 'request.header.X-Id'?)"
                ]
        )
        #expect(
            Self.problems(#"{{now offset="+1x"}}"#)
                == [
                    #"line 1: {{now offset="+1x"}}: offset '+1x': write signed amounts with a unit, e.g. +1d, -90m, +1h30m (units ms, s, m, h, d, w, M, y)"#
                ]
        )
        #expect(
            Self.problems(#"{{now zone="Mars/Base"}}"#)
                == [
                    #"line 1: {{now zone="Mars/Base"}}: zone 'Mars/Base': use UTC, an offset (+02:00) or an IANA name (Europe/Paris)"#
                ]
        )
        #expect(
            Self.problems("{{fake.int mn=1}}") == [
                "line 1: {{fake.int mn=1}}: unknown argument 'mn' for fake.int (it takes min, max, key)"
            ]
        )
        #expect(
            Self.problems("{{fake.int min=9 max=1}}") == [
                "line 1: {{fake.int min=9 max=1}}: fake.int: min (9) is above max (1)"
            ]
        )
        #expect(
            Self.problems("{{counter 3}}") == [
                "line 1: {{counter 3}}: counter takes no value '3' (write name=value arguments)"
            ]
        )
        #expect(Self.problems("{{#if request.query.a}}x") == ["{{#if}} without {{/if}}"])
        #expect(Self.problems("x{{/if}}") == ["{{/if}} without {{#if}}"])
        #expect(Self.problems("{{else}}") == ["{{else}} outside {{#if}}…{{/if}}"])
        #expect(Self.problems("{{#if request.body}}{{/unless}}") == ["{{#if}} closed by {{/unless}}"])
        #expect(Self.problems("{{#if a.b}}{{/if}}") == ["line 1: {{#if a.b}}: unknown helper 'a.b'"])
        #expect(
            Self.problems("{{#each items}}{{/each}}").first
                == "line 1: {{#each items}}: unknown block '#each' (blocks are #if and #unless)"
        )
        #expect(Self.problems("{{{{raw}}}} x") == ["line 1: {{{{raw}}}} without {{{{/raw}}}}"])
        #expect(
            Self.problems(#"{{fake.pick}}"#) == [
                #"line 1: {{fake.pick}}: fake.pick needs values: {{fake.pick "a" "b"}}"#
            ]
        )
        // A template with a problem renders nothing in its place, never the placeholder as written.
        let broken = Template.parse(Data("a{{nope}}b".utf8))!
        #expect(
            String(
                decoding: broken.render(TemplateContext(request: HTTPRequest(method: "GET", target: "/"), call: 1)),
                as: UTF8.self
            ) == "ab"
        )
    }

    @Test func fakeDataIsAFunctionOfSeedStubAndCall() throws {
        let text = "{{fake.name}}|{{fake.email}}|{{fake.phone}}|{{fake.uuid}}|{{fake.int min=1 max=1000}}|{{fake.uuid}}"
        let first = try Self.render(text, seed: 42)
        #expect(try Self.render(text, seed: 42) == first)
        #expect(try Self.render(text, seed: 43) != first)
        #expect(try Self.render(text, seed: 42, call: 2) != first)
        #expect(try Self.render(text, seed: 42, stub: "other") != first)
        let parts = first.split(separator: "|").map(String.init)
        // One person: the e-mail address is made of the name; two UUIDs in one template differ.
        let name = parts[0].split(separator: " ").map { $0.lowercased() }
        #expect(parts[1].hasPrefix("\(name[0]).\(name[1])@example."))
        #expect(parts[2].wholeMatch(of: /\+1[0-9]{3}55501[0-9]{2}/) != nil)
        #expect(parts[3].wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil)
        #expect(parts[3] != parts[5])
        #expect((1...1000).contains(Int(parts[4]) ?? 0))
        // `person=N` is another person; `key=` ties the values to a request value, whatever the stub.
        #expect(try Self.render("{{fake.name person=1}}", seed: 42) != parts[0])
        let user7 = HTTPRequest(method: "GET", target: "/users/7")
        let keyed = "{{fake.name key=request.path[1]}} {{fake.uuid key=request.path[1]}}"
        #expect(
            try Self.render(keyed, request: user7, seed: 42, stub: "a")
                == Self.render(keyed, request: user7, seed: 42, stub: "b", call: 9)
        )
        #expect(
            try Self.render(keyed, request: HTTPRequest(method: "GET", target: "/users/8"), seed: 42)
                != Self.render(keyed, request: user7, seed: 42)
        )
    }

    /// The values for one seed are pinned: they must not change between runs, machines or compiler versions.
    @Test func fakeDataForSeedSevenIsPinned() throws {
        let text = """
            {{fake.firstName}} {{fake.lastName}} <{{fake.email}}> {{fake.username}} {{fake.phone}}
            {{fake.address}} ({{fake.countryCode}}) {{fake.company}}
            {{fake.uuid}} {{fake.int min=-5 max=5}} {{fake.decimal max=10}} {{fake.bool}} {{fake.digits}} {{fake.hex length=8}}
            {{fake.words}} / {{fake.sentence count=3}} / {{fake.pick "red" "green" "blue"}}
            """
        let rendered = try Self.render(text, seed: 7, stub: "GET_v1_me", call: 1)
        #expect(try Self.render(text, seed: 7, stub: "GET_v1_me", call: 1) == rendered)
        let lines = rendered.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines == Self.pinnedSevenLines, "\(lines)")
    }

    static let pinnedSevenLines = [
        "Hana Young <hana.young@example.net> hana_young1 +16465550191",
        "388 Sunset Lane, 57225 Hamilton, Belgium (BE) Novak Studio",
        "ae42a9fb-9816-4f89-b69e-823eab8fa549 0 5.96 false 751268 caf7d095",
        "canvas velvet lotus / Falcon prism galaxy. / red",
    ]
}
