import Testing

@testable import mockd

/// Every `--help` text pinned whole, as swift-argument-parser's `MathExampleTests` does: any change to a help
/// text, or to the COMMANDS and USAGE generated from `Mockd.commands`, shows here as a diff to review.
struct HelpTextTests {
    /// Each command's whole help, by name. A new command fails `everyCommandsHelpIsPinned` until it is here.
    static let pinned: [String: String] = [
        Serve.name: topLevel, Record.name: record, Refresh.name: refresh, ImportHAR.name: importHAR,
        ImportWireMock.name: importWireMock,
        ImportOpenAPI.name: importOpenAPI,
        Validate.name: validate, Lint.name: lint, Diff.name: diff, Check.name: check, HealthCheck.name: health,
        MCP.name: mcp,
    ]

    @Test(arguments: Mockd.commands.map { $0.name })
    func everyCommandsHelpIsPinned(_ name: String) throws {
        let command = try #require(Mockd.commands.first { $0.name == name })
        guard let expected = Self.pinned[name] else {
            Issue.record("no pinned help for `mockd \(name)`: add its whole --help text to HelpTextTests.pinned")
            return
        }
        if let difference = Self.firstDifference(expected: expected, actual: command.help) {
            Issue.record("`mockd \(name) --help` is not the pinned text: \(difference)")
        }
    }

    @Test func theTopLevelHelpIsTheDefaultCommands() {
        #expect(Mockd.defaultCommand.name == Serve.name)
        #expect(Mockd.select(["--help"]).command.name == Serve.name)
    }

    /// `line N: pinned "…" / now "…"` for the first line that differs, or `nil` when the texts are equal.
    static func firstDifference(expected: String, actual: String) -> String? {
        guard expected != actual else { return nil }
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for line in 0..<max(old.count, new.count) {
            let pinned = line < old.count ? "\"\(old[line])\"" : "(end of text)"
            let now = line < new.count ? "\"\(new[line])\"" : "(end of text)"
            if pinned != now { return "line \(line + 1): pinned \(pinned), now \(now)" }
        }
        return "(they differ in a way no line shows)"
    }

    static let topLevel = """
        OVERVIEW: mockd — a local mock HTTP server that replays recorded traffic (HAR) for a named scenario.

        USAGE: mockd --config <name> [--root <dir>] [--port <n>] [--host <addr>] [--threads <n>] [--quiet]
                     [--control-token <t>] [--max-sessions <n>] [--session-timeout <s>] [--journal-limit <n>]
               mockd --set <name> [same options]
               mockd --config <name> --on-miss proxy --upstream <url> [--record-misses] [same options]
               mockd record --upstream <url> --set <name> [--har <file>] [--merge | --force] [same options]
               mockd refresh --upstream <url> --set <name> [--into <new-name>] [--header 'Name: value']...
               mockd import-har <file.har> --set <name> [--root <dir>] [--host <host>]... [--force]
               mockd import-wiremock <dir|file.json> --set <name> [--root <dir>] [--force] [--global-templating] [--redact]
               mockd import-openapi <spec.yaml|spec.json> --set <name> [--seed <n>] [--force]
               mockd validate --config <name> [--root <dir>]
               mockd lint mocks/<name>
               mockd diff <old> <new> [--format text|markdown|json]
               mockd check --openapi <spec> mocks/<name>|configs/<name>.json...
               mockd health [--port <n>] [--host <addr>] [--timeout <s>] [--control-token <t>]
               mockd mcp (--config <name> | --set <name>) [serve options]
               mockd mcp --attach <url> [--control-token <t>]

        COMMANDS:
          record                  Reverse-proxy an upstream and record every exchange into a HAR and a mock set
                                  (see `mockd record --help`).
          refresh                 Replay a set's recorded requests against the live API and show what changed
                                  (see `mockd refresh --help`).
          import-har              Compile a HAR file into a mock set (see `mockd import-har --help`).
          import-wiremock         Turn WireMock stub mappings into a mock set and a scenario (see `mockd import-wiremock --help`).
          import-openapi          Turn an OpenAPI 3.0/3.1 document into a scenario that serves every operation
                                  (see `mockd import-openapi --help`).
          validate                Check a scenario and the files it names (see `mockd validate --help`).
          lint                    Find secrets and personal data left in a mock set (see `mockd lint --help`).
          diff                    Show what changed between two mock sets or HAR recordings (see `mockd diff --help`).
          check                   Check mock sets and scenarios against an OpenAPI document (see `mockd check --help`).
          health                  Exit 0 when a running mockd answers its health check (see `mockd health --help`).
          mcp                     Run an MCP server on stdio so a coding agent can steer mockd (see `mockd mcp --help`).

        OPTIONS:
          --config <name>         Scenario to serve: configs/<name>.json under the root, or a path to a .json file.
          --set <name>            Serve the mock set mocks/<name>/ alone, without a scenario file.
          --root <dir>            Folder holding mocks/ and configs/. (default: $MOCKD_ROOT, else the current directory)
          --port <n>              TCP port to listen on; 0 picks a free port. (default: 8080)
          --host <addr>           Address to bind; 0.0.0.0 accepts other machines. (default: 127.0.0.1)
          --threads <n>           Worker threads. (default: one per core)
          --quiet                 Do not log a line per request.
          --control-token <t>     Require `Authorization: Bearer <t>` on the control API (/__mockd/*); at least 16
                                  visible characters. (default: none; required with a non-loopback --host)
          --insecure-control      Serve the control API without a token on a non-loopback --host, knowingly.
          --summary <file>        At shutdown, write every session's coverage (stubs and overrides never used) as
                                  JSON to <file>, and one line saying how many.
          --max-sessions <n>      Test sessions kept besides the default one; least recently used go first. (default: 1000)
          --session-timeout <s>   Remove a session idle this many seconds. (default: 1800)
          --journal-limit <n>     Journal entries kept per session; older ones are dropped and counted. (default: 10000)
          --openapi <spec>        Check every request and the answer it got against this OpenAPI document:
                                  contractViolations in the journal, GET /__mockd/contract, verify with
                                  "contract": true. (default: none)
          --max-header-bytes <b>  Memory per connection for the request line and headers, in bytes; bigger
                                  requests get 431 (414 for a long URL). Raise it for query strings over
                                  ~450 parameters, at some cost per new connection. (default: 32768)
          --max-body <b>          Largest request body in bytes; a bigger one gets 413 without being read.
                                  (default: 33554432, 32 MiB)
          --max-connections <n>   Open connections at most; more are refused at accept. (default: 10000)
          --connection-timeout <s> Close a connection idle this many seconds, or whose request (head and body)
                                  has not arrived whole within it. (default: 60)
          --shutdown-timeout <s>  On SIGTERM or SIGINT, stop accepting connections and give requests in flight
                                  (latency included) this many seconds to finish; 0 cuts them at once. (default: 5)
          --on-miss <proxy|404>   What unmatched requests get: the engine's 404 naming the nearest stubs, or the
                                  upstream's answer (needs --upstream). (default: 404)
          --upstream <url>        The server unmatched requests go to, as an origin: https://api.example.com.
          --upstream-timeout <s>  Whole-exchange limit per upstream request; past it the client gets 504. (default: 30)
          --upstream-insecure     Do not verify the upstream's TLS certificate (a warning is printed).
          --upstream-ca <file>    Also trust the CA certificates in this PEM file for the upstream.
          --record-misses         Record proxied exchanges into the mock set <name>-captured (merged into it when
                                  it exists), written with a HAR on SIGINT/SIGTERM and POST /__mockd/record/flush.
          --tls-cert <file>       Serve HTTPS with this PEM certificate chain (scripts/make-cert makes one).
          --tls-key <file>        The certificate's PEM private key (unencrypted).
          --tls-port <n>          Serve HTTPS on this port and plain HTTP on --port (one engine behind both);
                                  without it --port serves HTTPS alone.
          --webhook-allow <host>  Let webhooks (emit[].webhook) reach this host (host or host:port; repeat it, or
                                  give a comma list) besides loopback addresses. (default: loopback only)
          --version               Show the version.
          -h, --help              Show help information.

        ENVIRONMENT (a flag wins over its variable; an empty value counts as unset):
          MOCKD_CONFIG            Scenario to serve when neither --config nor --set is given.
          MOCKD_ROOT              Folder holding mocks/ and configs/ when --root is not given.
          MOCKD_HOST              Address to bind when --host is not given; `mockd health` probes it.
          MOCKD_PORT              Port when --port is not given; `mockd health` probes it.
          MOCKD_CONTROL_TOKEN     Control API token when --control-token is not given; `mockd health` sends it.
                                  Set but empty is an error (a missing CI secret), not "no token".
          MOCKD_INSECURE_CONTROL  1: --insecure-control (the container image sets it: a CI job's network is its own).
          MOCKD_WEBHOOK_ALLOW     Hosts for --webhook-allow, comma-separated, when the flag is not given.

        SIGTERM and SIGINT stop gracefully: new connections are refused, requests in flight are answered for up
        to --shutdown-timeout seconds, then mockd exits 0 (a second signal stops at once).
        SIGHUP reloads the scenario and its mock sets; a broken file leaves the previous version serving.
        Once listening, mockd prints one line to stdout per port, `listening on http://ADDR:PORT` (https:// for
        HTTPS); logs go to stderr, one line per request: method, target, status, stub id, "upstream" or
        "unmatched", duration in ms.
        Exit codes: 0 success, 1 runtime failure, 64 usage error.
        """

    static let mcp = """
        OVERVIEW: A Model Context Protocol server on stdio (JSON-RPC 2.0, MCP 2025-11-25) for coding agents. It runs
        the daemon in this process with the serving options of `mockd --config` (on --port 0 unless given; the
        daemon's lines go to stderr, stdout carries MCP only), or steers a running daemon with --attach.

        Tools: list_scenarios, use_scenario, list_stubs, add_stub, replace_stub, remove_stub, replace_group,
        add_group, remove_group, reset, read_journal, explain_miss, verify, list_sessions (on the daemon, per
        session), import_har, lint_set, validate_scenario (on files). Errors are tool results with mockd's
        one-line message. When stdin closes, mockd stops.

        USAGE: mockd mcp (--config <name> | --set <name>) [serve options]
               mockd mcp --attach <url> [--control-token <t>]

        OPTIONS:
          --attach <url>          Steer the daemon at this base URL (http://127.0.0.1:8080) instead of running one.
          --control-token <t>     The daemon's control token. (default: $MOCKD_CONTROL_TOKEN)
          -h, --help              Show help information.
          Any other option is one of `mockd --config`'s (see mockd --help).

        An agent's MCP configuration: {"mcpServers": {"mockd": {"command": "mockd", "args": ["mcp", "--config",
        "chat_happy_path", "--root", "/path/to/project"]}}}
        """

    static let record = """
        OVERVIEW: Record an API as a mock set: mockd forwards every request to the upstream, answers the client with
        the upstream's answer unchanged (status, headers with every Set-Cookie, body bytes; a compressed body stays
        compressed), and records the exchange. On SIGINT/SIGTERM and on POST /__mockd/record/flush it writes the
        recording as a HAR 1.2 file and compiles it into mocks/<name>/ exactly as import-har does (hygiene on: the
        set holds placeholders, never the recorded secrets; the HAR holds everything as sent: keep it out of git),
        printing the import report to stdout. Each flush rewrites this run's HAR with everything so far.

        A request the upstream cannot answer is recorded too (status 0 and the error in the HAR, skipped and
        reported by the import); the client gets 502 (connection, DNS or TLS error) or 504 (--upstream-timeout
        passed) with a JSON body naming the upstream and the error.

        USAGE: mockd record --upstream <url> --set <name> [--root <dir>] [--port <n>] [--host <addr>] [--har <file>]
                            [--merge | --force] [--upstream-timeout <s>] [--upstream-insecure | --upstream-ca <file>]
                            [--tls-cert <file> --tls-key <file> [--tls-port <n>]]

        OPTIONS:
          --upstream <url>        The server to record, as an origin: https://api.example.com (no path).
          --set <name>            The mock set to write, mocks/<name>/ (letters, digits, '.', '_', '-').
          --root <dir>            Folder holding mocks/ and recordings/. (default: $MOCKD_ROOT, else the current directory)
          --port <n>              TCP port to listen on; 0 picks a free port. (default: 8080)
          --host <addr>           Address to bind. (default: 127.0.0.1)
          --har <file>            Where to write the HAR. (default: <root>/recordings/<name>-<UTC time>.har)
          --merge                 The set exists: merge the recording into it (recorded stubs replaced, others kept).
          --force                 The set (or the --har file) exists: replace it.
          --upstream-timeout <s>  Whole-exchange limit per request; past it the client gets 504. (default: 30)
          --upstream-insecure     Do not verify the upstream's TLS certificate (a warning is printed).
          --upstream-ca <file>    Also trust the CA certificates in this PEM file for the upstream.
          --tls-cert <file>       Serve HTTPS with this PEM certificate chain (scripts/make-cert makes one).
          --tls-key <file>        The certificate's PEM private key.
          --tls-port <n>          Serve HTTPS on this port besides plain HTTP on --port.
          --threads <n>           Worker threads. (default: one per core)
          --control-token <t>     Require `Authorization: Bearer <t>` on /__mockd/* (at least 16 visible characters).
          --insecure-control      Serve the control API without a token on a non-loopback --host, knowingly.
          --summary <file>        At shutdown, write every session's coverage (stubs never used) as JSON to <file>.
          --shutdown-timeout <s>  On SIGINT/SIGTERM, give requests in flight this long before writing. (default: 5)
          --max-body <b>          Largest request body in bytes. (default: 33554432)
          --quiet                 Do not log a line per request.
          -h, --help              Show help information.

        Without --merge or --force an existing set is refused at start, so a recording never overwrites hand
        edits. Control API: GET /__mockd/record (counts), POST /__mockd/record/flush (write now).
        """

    static let importHAR = """
        OVERVIEW: Compile a HAR file into the mock set mocks/<name>/ (an index.json and a bodies/ folder).

        Repeated requests with the same key become one stub with a response sequence, in HAR order. WebSocket
        entries with Chrome's _webSocketMessages become scripts replaying the server's frames with their
        recorded timing. Failed entries (status 0 or -1) are skipped and reported. Nothing is written when
        the file is not a HAR.

        Hygiene is on by default: Authorization, Cookie and Set-Cookie values, API keys, tokens and JWTs
        (headers, query, JSON and form bodies), e-mail addresses and phone numbers become placeholders
        ({{token}}, {{cookie}}, {{email}}, {{phone}}…) that render to fixed fake values when served; the
        rules that let live requests with real values match are written to the set's "normalize". Unstable
        headers (Date, Age, request and trace ids, Server-Timing, Report-To, NEL) are not stored. The report
        lists every change.

        USAGE: mockd import-har <file.har> --set <name> [--root <dir>] [--host <host>]... [--force | --merge]

        ARGUMENTS:
          <file.har>              The HAR 1.1/1.2 file (Chrome, Firefox, Safari, Charles, Proxyman, mitmproxy…).

        OPTIONS:
          --set <name>            Name of the mock set to write (letters, digits, '.', '_', '-').
          --root <dir>            Folder holding mocks/. (default: $MOCKD_ROOT, else the current directory)
          --host <host>           Keep only entries for this host (or host:port); repeat for several. (default: all)
          --match-header <name>   Request header recorded as a match constraint; repeat for several.
                                  (default: Accept and Content-Type)
          --force                 Replace the mock set if it exists.
          --ws-time-scale <f>     Multiply recorded WebSocket frame and SSE event delays by f; 0 sends them at once.
                                  (default: 1)
          --ws-wait-for-client    Replay server frames only after the client frame that preceded them in the recording.
          --keep-secrets          Keep secrets and personal data as recorded (no redaction).
          --keep-header <name>    Store this unstable header after all; repeat for several.
          --drop-header <name>    Also leave out this response header; repeat for several.
          --ignore-query <name>   Leave this query parameter out of keys (here and when serving); a trailing *
                                  matches a prefix (utm_*); repeat for several. (`_` is ignored when recorded)
          --ignore-body-field <p> Leave this JSON/form field out of request-body matching: a name (any depth)
                                  or a path like meta.sentAt or items[].id; repeat for several.
          --normalize <file>      Read more rules from a JSON file shaped like a set's "normalize" (see docs/FORMAT.md).
          --failed <skip|keep>    Failed attempts (status 0/-1): leave out, or replay in their place in the
                                  sequence as what the client saw: offline, DNS, TLS, timeout, cancelled
                                  (raised by MockdAppRedirect), else a connection reset. (default: skip)
          --missing-bodies <miss|empty>
                                  Responses the HAR has no body for (a size but no text) where a client reads
                                  one: answer with a miss that says so, or serve them empty. Answers without a
                                  body (HEAD, 204, 205, 304, redirects) are served either way. (default: miss)
          --cors                  Answer CORS preflights the recording lacks with a permissive 204, and let every
                                  answer allow the request's Origin.
          --flatten-hosts         With several hosts, leave hosts out of keys anyway (collisions are reported).
          --rebase-dates          Serve the recorded dates found in answers (listed in the report either way)
                                  moved to the session's clock: writes "rebaseDates": true.
          --merge                 Merge into an existing set: stubs this HAR records are replaced, others (and
                                  hand edits to them) kept.
          -h, --help              Show help information.
        """

    static let importWireMock = """
        OVERVIEW: Turn WireMock stub mappings into the mock set mocks/<name>/ and the scenario configs/<name>.json.

        Mappings matching an exact method and url only go to the mock set index; every other mapping (url
        patterns, query/header/body matchers, scenario states, priorities, delays, faults) becomes a scenario
        override, with priority = -(WireMock priority) so WireMock's order is kept. bodyFileName resolves in the
        __files/ folder beside mappings/ (never outside it). What mockd cannot reproduce is listed at the end as
        `file: JSON path: reason`. Nothing is written when a file is not JSON, has wrong types or an invalid regex.
        Serve the result with `mockd --config <name>`.

        USAGE: mockd import-wiremock <dir|file.json> --set <name> [--root <dir>] [--force] [--global-templating] [--redact]

        ARGUMENTS:
          <dir|file.json>         A mapping file (one mapping, or {"mappings": [...]}), a WireMock root folder
                                  (mappings/ + __files/), a mappings/ folder, or any folder of *.json mappings.

        OPTIONS:
          --set <name>            Name of the mock set and scenario to write (letters, digits, '.', '_', '-').
          --root <dir>            Folder holding mocks/ and configs/. (default: $MOCKD_ROOT, else the current directory)
          --force                 Replace the mock set and scenario if they exist.
          --global-templating     Render {{…}} in every response, as WireMock started with
                                  --global-response-templating does. (default: only mappings with the
                                  response-template transformer; others send {{…}} as written)
          --redact                Replace secrets and personal data in responses with placeholders, as
                                  import-har does. (default: mappings are fixtures, served as written, as
                                  WireMock serves them; mockd lint reports what looks like a secret)
          -h, --help              Show help information.
        """

    static let validate = """
        OVERVIEW: Check a scenario (or one mock set) and every file it names, reporting every problem.

        Each problem is one line, `file: JSON path: message`; the exit code is 1 when there is any.
        Overrides that can never answer (another one tried first matches every request they match) or
        that a later override of the same priority takes requests from are warnings (`warning: …` on
        stderr, exit 0): among equal priorities the override listed later wins.

        USAGE: mockd validate --config <name> [--root <dir>]
               mockd validate --set <name> [--root <dir>]

        OPTIONS:
          --config <name>         Scenario to check: configs/<name>.json, its includes and its mock sets.
          --set <name>            Mock set to check: mocks/<name>/index.json and its body files.
          --root <dir>            Folder holding mocks/ and configs/. (default: $MOCKD_ROOT, else the current directory)
          -h, --help              Show help information.
        """

    static let lint = """
        OVERVIEW: Report secrets and personal data left in a mock set: tokens, JWTs, API keys, private keys,
        Authorization/Cookie/Set-Cookie values, e-mail addresses, phone numbers. Placeholders such as
        {{token}} and reserved example domains (example.com) are fine.

        One line per finding, `file: location: what`; exit 1 when there is any, 0 when the set is clean —
        fit for a CI step or a pre-commit hook.

        USAGE: mockd lint mocks/<name> | <name> [--root <dir>]

        OPTIONS:
          --root <dir>            Folder holding mocks/ when a set name is given. (default: $MOCKD_ROOT, else the current directory)
          -h, --help              Show help information.
        """

    static let health = """
        OVERVIEW: Ask a running mockd whether it is up: GET /__mockd/health, exit 0 on 200, else 1 with one line
        saying why. For container health checks and CI readiness loops; needs nothing but the mockd binary.

        USAGE: mockd health [--port <n>] [--host <addr>] [--timeout <s>] [--control-token <t>]

        OPTIONS:
          --port <n>              Port of the daemon. (default: $MOCKD_PORT, else 8080)
          --host <addr>           Address of the daemon; 0.0.0.0 and :: mean this machine. (default: $MOCKD_HOST,
                                  else 127.0.0.1)
          --timeout <s>           Seconds for the whole check: connect, ask, read the answer. (default: 5)
          --control-token <t>     Sent as `Authorization: Bearer <t>`. (default: $MOCKD_CONTROL_TOKEN)
          -h, --help              Show help information.
        """

    static let diff = """
        OVERVIEW: Show what changed between two versions of an API: endpoints added and removed (method and path
        template, with their hosts), status codes added and removed per endpoint, structural changes of JSON
        bodies as JSON paths (field added, removed, type changed, array item shape changed), then value-only
        changes counted per endpoint and status. Placeholders ({{token}}, {{email}}, normalised values) never
        count as changes.

        <old> and <new> are each a mock set (a folder holding index.json, or a set name under mocks/) or a HAR
        file (compiled with import-har's defaults, hygiene on). Exit 0 when they are equal, 1 when they
        differ, 2 when a side cannot be read, 64 on a usage error — fit for a CI step.

        USAGE: mockd diff <old> <new> [--format text|markdown|json] [--root <dir>]

        OPTIONS:
          --format <format>       text (one line per change), markdown (for a pull request) or json. (default: text)
          --root <dir>            Folder holding mocks/ when a set name is given. (default: $MOCKD_ROOT, else the current directory)
          -h, --help              Show help information.
        """

    static let importOpenAPI = """
        OVERVIEW: Turn an OpenAPI 3.0 or 3.1 document (JSON or YAML) into the scenario configs/<name>.json (with an
        empty mock set mocks/<name>/ beneath it): one
        override per operation and documented status, matching the method and the path as a {name} template
        under the first server's path (/v1/pets/{petId}). Each answers the media type's example, its first named
        example, or an example generated from the schema ($ref, allOf/oneOf/anyOf, nullable, formats, bounds),
        the same for the same --seed. The lowest 2xx status answers by default; another status answers requests
        with `Prefer: code=<status>`, another named example `Prefer: example=<name>` (Prism's convention).
        Serve it with `mockd --config <name>`.

        USAGE: mockd import-openapi <spec.yaml|spec.json> --set <name> [--root <dir>] [--seed <n>] [--base-path <path>] [--force]

        OPTIONS:
          --set <name>            Name of the scenario to write (letters, digits, '.', '_', '-').
          --root <dir>            Folder holding configs/. (default: $MOCKD_ROOT, else the current directory)
          --seed <n>              Seed of the generated examples. (default: 1)
          --base-path <path>      Prefix of every path instead of the first server's path; / for none.
          --force                 Replace the scenario and mock set if they exist.
          -h, --help              Show help information.
        """

    static let check = """
        OVERVIEW: Check mock sets and scenarios against an OpenAPI 3.0 or 3.1 document (JSON or YAML): every
        stored answer against the response schema of its operation, status and media type; every recorded
        request against the operation's path and query parameters (and headers the set records) and its
        request body. For a scenario, every answer it can give: the sets it serves (included scenarios'
        too), its overrides' own answers, and what each override that edits (bodyPatch, status) makes of
        every stub it matches. Undocumented operations, statuses and media types are reported.
        Placeholders ({{email}}) are accepted wherever they stand.

        One line per finding, `file: location: message`; exit 1 when there is any, 0 when everything honours
        the document, 2 when the document or a set cannot be read — fit for a CI step.

        USAGE: mockd check --openapi <spec> mocks/<name>|<name>|configs/<name>.json... [--base-path <path>] [--root <dir>]

        OPTIONS:
          --openapi <spec>        The OpenAPI document (.yaml, .yml or .json).
          --base-path <path>      Prefix of the document's paths instead of the first server's path; / for none.
          --root <dir>            Folder holding mocks/ and configs/. (default: $MOCKD_ROOT, else the current directory)
          -h, --help              Show help information.
        """

    static let refresh = """
        OVERVIEW: Replay every stub's recorded request (method, path and query, matched headers, body) against the
        live API and compile the answers through the importer (hygiene on) into a new set, keeping the old one
        for regression (--into), or merged into the old set. Prints the requests the upstream refused (401, 403)
        or that now fail (5xx, a 4xx where a success was recorded, no answer), the stubs that cannot be replayed
        (no recorded request: hand-written or WireMock sets; placeholders in the request), then the diff of the
        two sets as `mockd diff` prints it.

        Credentials go in --header (or $MOCKD_UPSTREAM_AUTHORIZATION): they are sent with every request and
        written to no set, HAR or log.

        USAGE: mockd refresh --upstream <url> --set <name> [--into <new-name>] [--header 'Name: value']...
                             [--concurrency <n>] [--upstream-timeout <s>] [--upstream-insecure] [--upstream-ca <file>]
                             [--force] [--root <dir>]

        OPTIONS:
          --upstream <url>        The live API's origin (http or https, no path).
          --set <name>            The recorded set to refresh.
          --into <new-name>       Write the answers to this new set and keep the old one. (default: merge into --set)
          --header <line>         A header sent with every request, such as 'Authorization: Bearer …'; repeatable.
                                  (default: Authorization from $MOCKD_UPSTREAM_AUTHORIZATION when set)
          --concurrency <n>       Requests in flight at once. (default: 4)
          --upstream-timeout <s>  Seconds for each request. (default: 30)
          --upstream-insecure     Do not verify the upstream's TLS certificate.
          --upstream-ca <file>    PEM file of extra CA certificates for the upstream.
          --force                 Replace the --into set if it exists.
          --root <dir>            Folder holding mocks/. (default: $MOCKD_ROOT, else the current directory)
          -h, --help              Show help information.
        """
}
