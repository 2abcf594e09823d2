public import MockdFormat

/// Every control route, by name: the table's keys (`ControlRoutes.all`), the operation ids of the OpenAPI document.
public enum ControlRouteID: String, CaseIterable, Sendable, Hashable {
    case health, scenarios, currentScenario, useScenario, answerSource
    case listStubs, addStub, removeStubs, getStub, removeStub
    case listGroups, replaceGroup, addToGroup, removeGroup, dropSession, reset
    case readClock, moveClock, readSwitches, setSwitches, listResources, getResource
    case journal, journalHAR, journalStream, journalEntry, unmatched, coverage, verify, contract
    case sessions, reload, listWebSockets, sendWebSocket, closeWebSockets, release, emit
    case recordStatus, flushRecording, openAPI
}

/// The control API under `/__mockd/`, one row per route: method, path, parameters, request and answer types, the
/// errors it answers, whether it creates the session, its doc line, the `MockdClient` method and the MCP tool.
///
/// The daemon dispatches on this table (an exhaustive `switch` over `ControlRouteID` binds each row to its handler),
/// `GET /__mockd/openapi.json` and docs/control-api.openapi.json are made from it (`ControlOpenAPI`), `mockd mcp`
/// derives its tools from it, and `ControlContractTests` fails on a row without a client method, a tool (or a stated
/// exclusion) or a doc line.
public enum ControlRoutes {
    static let journalFilters: [ControlParameter] = [
        .query("method", ["type": "string"], "only requests with this method"),
        .query("path", ["type": "string"], "only requests for this path (compared without the query)"),
        .query("unmatched", ControlParameter.boolean, "`true`: only requests no stub answered"),
    ]
    static let stubID = ControlParameter.path("id", ["type": "string", "minLength": 1], "the runtime stub's id")
    static let groupName = ControlParameter.path(
        "name",
        ["type": "string", "pattern": "^[A-Za-z0-9._~-]{1,128}$"],
        "the group's name: 1–128 letters, digits, '-', '.', '_' or '~'"
    )

    public static let health = ControlRoute(
        .health,
        "GET",
        "health",
        answer: Health.self,
        doc: "The daemon's status: version, uptime, scenario, sessions, requests in flight (a readiness probe).",
        client: "health()",
        mcp: .tool("health")
    )
    public static let scenarios = ControlRoute(
        .scenarios,
        "GET",
        "scenarios",
        answer: ScenarioList.self,
        doc: "The scenarios (configs/*.json) with their descriptions, the session's marked active.",
        client: "scenarios()",
        mcp: .tool("list_scenarios")
    )
    public static let currentScenario = ControlRoute(
        .currentScenario,
        "GET",
        "scenario",
        answer: ScenarioState.self,
        doc: "The session's scenario, its mock sets and where its state machines stand.",
        client: "scenario()",
        mcp: .tool("current_scenario")
    )
    public static let useScenario = ControlRoute(
        .useScenario,
        "PUT",
        "scenario",
        request: UseScenario.self,
        answer: ActiveScenario.self,
        errors: [.unknownScenario, .invalidScenario],
        createsSession: true,
        doc: "Switch the session to a scenario by name; its sequences, state machines and runtime stubs start over.",
        client: "useScenario(_:)",
        mcp: .tool("use_scenario")
    )
    public static let answerSource = ControlRoute(
        .answerSource,
        "GET",
        "scenario/answers/{id}",
        parameters: [.path("id", ["type": "string", "minLength": 1], "the id a journal entry's `stub` names")],
        answer: AnswerSource.self,
        errors: [.unknownAnswer],
        doc: "What answers as ID in the session: a runtime stub, an override of its scenario, or a mock set's stub.",
        client: "answerSource(id:)",
        mcp: .tool("explain_answer")
    )
    public static let listStubs = ControlRoute(
        .listStubs,
        "GET",
        "stubs",
        answer: RuntimeStubList.self,
        doc: "The session's runtime stubs, in the order they were added, each with its definition and group.",
        client: "stubDefinitions()",
        mcp: .tool("list_stubs")
    )
    public static let addStub = ControlRoute(
        .addStub,
        "POST",
        "stubs",
        request: ScenarioFile.OverrideEntry.self,
        bodyName: "stub",
        invalidBody: .invalidStub,
        answer: AddedStub.self,
        status: 201,
        errors: [.invalidStub],
        createsSession: true,
        doc:
            "Add a runtime stub (the scenario override format), tried before the scenario's overrides and mock sets; a stub with the id of another replaces it.",
        client: "addStub(_:)",
        mcp: .tool("add_stub"),
        shortcuts: [
            ControlShortcut(
                "fail_requests",
                arguments: FailRequests.self,
                doc:
                    "Make the session's next requests to a path fail, then answer as before. Client faults (offline, dnsFailure, tlsFailure, timeout, cancelled) are raised in the app by MockdAppRedirect as URLError (notConnectedToInternet, cannotFindHost, secureConnectionFailed, timedOut, cancelled); a client without it gets a reset (no answer for timeout). Wire faults (connectionReset, emptyResponse, truncatedBody, malformedChunk, noResponse) break the connection.",
                body: { $0.stub }
            ),
            ControlShortcut(
                "add_graphql_stub",
                arguments: GraphQLStubArguments.self,
                doc:
                    "Add a runtime stub for one GraphQL operation, matched by operation name and variables rather than the body's text (POST or GET, document or persisted-query hash, variables in any order): answers {\"data\": data}, a GraphQL error answer (200 {\"data\": null, \"errors\": […]}) from errors, or both. Without data and errors it passes the mock set's answer through.",
                body: { $0.stub }
            ),
        ],
        links: [
            ControlLink("stub", to: .getStub, ["id": "$response.body#/id"]),
            ControlLink("answer", to: .answerSource, ["id": "$response.body#/id"]),
            ControlLink("remove", to: .removeStub, ["id": "$response.body#/id"]),
        ]
    )
    public static let removeStubs = ControlRoute(
        .removeStubs,
        "DELETE",
        "stubs",
        answer: NoBody.self,
        createsSession: true,
        doc: "Remove every runtime stub of the session.",
        client: "removeStubs()",
        mcp: .tool("remove_all_stubs")
    )
    public static let getStub = ControlRoute(
        .getStub,
        "GET",
        "stubs/{id}",
        parameters: [stubID],
        answer: RuntimeStub.self,
        errors: [.unknownStub],
        doc: "One runtime stub of the session, with its definition.",
        client: "stub(id:)",
        mcp: .tool("get_stub")
    )
    public static let removeStub = ControlRoute(
        .removeStub,
        "DELETE",
        "stubs/{id}",
        parameters: [stubID],
        answer: NoBody.self,
        errors: [.unknownStub],
        createsSession: true,
        doc: "Remove one runtime stub of the session.",
        client: "removeStub(id:)",
        mcp: .tool("remove_stub")
    )
    public static let listGroups = ControlRoute(
        .listGroups,
        "GET",
        "groups",
        answer: GroupList.self,
        doc: "The session's stub groups, sorted by name, with the ids of their stubs.",
        client: "groups()",
        mcp: .tool("list_groups")
    )
    public static let replaceGroup = ControlRoute(
        .replaceGroup,
        "PUT",
        "groups/{name}",
        parameters: [groupName],
        request: GroupStubs.self,
        invalidBody: .badRequest,
        answer: GroupChange.self,
        errors: [.invalidGroup, .invalidStub],
        createsSession: true,
        doc:
            "Replace the session's stub group NAME by these stubs in one atomic step (created when new); one bad stub refuses the call and changes nothing.",
        client: "replace(_:)",
        mcp: .tool("replace_group"),
        links: [ControlLink("remove", to: .removeGroup, ["name": "$request.path.name"])]
    )
    public static let addToGroup = ControlRoute(
        .addToGroup,
        "POST",
        "groups/{name}",
        parameters: [groupName],
        request: GroupStubs.self,
        answer: GroupChange.self,
        errors: [.invalidGroup, .invalidStub],
        createsSession: true,
        doc: "Add stubs to the session's stub group NAME in one atomic step (a stub whose id exists replaces it).",
        client: "add(_:)",
        mcp: .tool("add_group"),
        links: [ControlLink("remove", to: .removeGroup, ["name": "$request.path.name"])]
    )
    public static let removeGroup = ControlRoute(
        .removeGroup,
        "DELETE",
        "groups/{name}",
        parameters: [.path("name", ["type": "string", "minLength": 1], "the group's name")],
        answer: GroupRemoval.self,
        errors: [.unknownGroup],
        createsSession: true,
        doc: "Remove every stub of the session's stub group NAME in one step.",
        client: "removeGroup(_:)",
        mcp: .tool("remove_group")
    )
    public static let dropSession = ControlRoute(
        .dropSession,
        "DELETE",
        "session",
        answer: DroppedSession.self,
        doc:
            "Forget the session (journal, runtime stubs, groups, state), as a test's tearDown does; the default session is reset instead.",
        client: "dropSession()",
        mcp: .tool("drop_session")
    )
    public static let reset = ControlRoute(
        .reset,
        "POST",
        "reset",
        parameters: [.query("all", ControlParameter.boolean, "`true`: reset every session")],
        answer: ResetResult.self,
        createsSession: true,
        doc:
            "Reset the session to its scenario's start: sequences, state machines, rate limits, runtime stubs, journal, resources, clock, switches.",
        client: "reset(allSessions:)",
        mcp: .tool("reset")
    )
    public static let readClock = ControlRoute(
        .readClock,
        "GET",
        "clock",
        answer: VirtualClock.self,
        doc: "The session's virtual clock: its time and how far it is ahead of real time.",
        client: "clock()",
        mcp: .tool("read_clock")
    )
    public static let moveClock = ControlRoute(
        .moveClock,
        "POST",
        "clock",
        request: ClockChange.self,
        invalidBody: .invalidClock,
        answer: VirtualClock.self,
        errors: [.invalidClock],
        createsSession: true,
        doc: "Move the session's virtual clock forward (advanceMs) or set it (set); it runs on with real time.",
        client: "advanceClock(byMs:)",
        mcp: .tool("move_clock"),
        shortcuts: [
            ControlShortcut(
                "set_clock",
                arguments: SetClockArguments.self,
                doc:
                    "Read or move the session's virtual clock, which {{now}}, rebased recorded dates (rebaseDates), the Date header, state timeouts and rate-limit windows read: set (an RFC 3339 date-time with a zone) or advanceMs; with neither, the clock as it is. It runs on with real time from there.",
                otherwise: .readClock
            ) { try $0.body() }
        ]
    )
    public static let readSwitches = ControlRoute(
        .readSwitches,
        "GET",
        "switches",
        answer: Switches.self,
        doc: "The session's switches: latency scale, the seed of chance rules, rules turned off.",
        client: "switches()",
        mcp: .tool("read_switches")
    )
    public static let setSwitches = ControlRoute(
        .setSwitches,
        "POST",
        "switches",
        request: SwitchesChange.self,
        invalidBody: .invalidSwitches,
        answer: Switches.self,
        errors: [.invalidSwitches],
        createsSession: true,
        doc:
            "Set the session's switches: scale latency, reseed chance rules, turn overrides and runtime stubs off or on.",
        client: "setSwitches(latencyScale:seed:rules:)",
        mcp: .tool("set_switches"),
        shortcuts: [
            ControlShortcut(
                "set_seed",
                arguments: SetSeedArguments.self,
                doc:
                    "Set the session's seed: {{fake.…}} data (names, e-mails, phones, addresses, UUIDs, numbers) and chance rules are a function of it, so a run with the same seed gets the same values. Answers the session's switches."
            ) { ["seed": .int(Int($0.seed))] }
        ]
    )
    public static let listResources = ControlRoute(
        .listResources,
        "GET",
        "resources",
        answer: ResourceList.self,
        doc: "The session's stateful resources with their item counts.",
        client: "resources()",
        mcp: .tool("list_resources"),
        links: [ControlLink("resource", to: .getResource, ["name": "$response.body#/resources/0/name"])]
    )
    public static let getResource = ControlRoute(
        .getResource,
        "GET",
        "resources/{name}",
        parameters: [.path("name", ["type": "string", "minLength": 1], "the resource's name")],
        answer: ResourceState.self,
        errors: [.unknownResource],
        doc: "One stateful resource of the session with its items in order.",
        client: "resource(_:)",
        mcp: .tool("get_resource")
    )
    public static let journal = ControlRoute(
        .journal,
        "GET",
        "journal",
        parameters: [
            .query("limit", ["type": "integer", "minimum": 1, "maximum": 10_000], "entries per page (default 1,000)"),
            .query(
                "after",
                ["type": "integer", "minimum": 0],
                "the `next` cursor of the previous page",
                invalid: "after must be the next cursor of a previous page (a whole number ≥ 0), got"
            ),
        ] + journalFilters,
        answer: JournalPage.self,
        doc: "The requests the app sent in the session, oldest first, in pages, with the stub that answered each.",
        client: "journalPage(limit:after:method:path:unmatchedOnly:)",
        mcp: .tool("read_journal"),
        links: [
            ControlLink("entry", to: .journalEntry, ["sequence": "$response.body#/entries/0/sequence"]),
            ControlLink("next", to: .journal, ["after": "$response.body#/next"]),
        ]
    )
    public static let journalHAR = ControlRoute(
        .journalHAR,
        "GET",
        "journal.har",
        parameters: [
            .query("keepSecrets", ControlParameter.boolean, "`true`: keep passwords, tokens and personal data as sent")
        ] + journalFilters,
        answer: JournalHAR.self,
        doc: "The session's journal as a HAR 1.2 file, secrets and personal data replaced by placeholders.",
        client: "journalHAR(keepSecrets:)",
        mcp: .excluded("a file to attach to a test result or import; read_journal has the same entries")
    )
    public static let journalStream = ControlRoute(
        .journalStream,
        "GET",
        "journal/stream",
        parameters: [
            .query(
                "after",
                ["type": "integer", "minimum": 0],
                "start after this sequence number (default 0)",
                invalid: "after must be a journal sequence number (a whole number ≥ 0), got"
            ),
            .header(
                "Last-Event-ID",
                ["type": "integer", "minimum": 0],
                "as `after`, when a client reconnects",
                invalid: "after must be a journal sequence number (a whole number ≥ 0), got"
            ),
        ],
        answer: JournalRow.self,
        kind: .eventStream,
        errors: [.tooManyStreams],
        doc:
            "The session's journal live, as Server-Sent Events: hello, then one entry event per request, reset events.",
        client: "journalEvents(after:)",
        mcp: .excluded("a stream that stays open, and a tool call needs one answer; read_journal with after instead")
    )
    public static let journalEntry = ControlRoute(
        .journalEntry,
        "GET",
        "journal/entries/{sequence}",
        parameters: [
            .path(
                "sequence",
                ["type": "integer", "minimum": 1],
                "the entry's sequence number",
                invalid: "journal entries are numbered from 1, got"
            )
        ],
        answer: JournalEntryDetail.self,
        errors: [.unknownEntry],
        doc: "One exchange of the journal in full: the request with its body, its near misses, the response sent.",
        client: "journalEntry(_:)",
        mcp: .tool("read_journal_entry")
    )
    public static let unmatched = ControlRoute(
        .unmatched,
        "GET",
        "unmatched",
        answer: UnmatchedList.self,
        doc: "The session's requests no stub answered, each with its nearest stubs and what differed.",
        client: "unmatched()",
        mcp: .tool("explain_miss"),
        links: [ControlLink("entry", to: .journalEntry, ["sequence": "$response.body#/requests/0/sequence"])]
    )
    public static let coverage = ControlRoute(
        .coverage,
        "GET",
        "coverage",
        answer: CoverageAnswer.self,
        doc: "Which stubs and overrides no request used: in this session, and over the daemon's life.",
        client: "coverage()",
        mcp: .tool("coverage")
    )
    public static let verify = ControlRoute(
        .verify,
        "POST",
        "verify",
        request: VerifyRequest.self,
        answer: VerifyResult.self,
        errors: [.verificationFailed, .contractViolated, .nothingChecked, .noContract],
        doc:
            "Check how often the app sent a request (count exactly, or atLeast), or with contract: true that every request honours --openapi.",
        client: "verify(method:path:host:count:)",
        mcp: .tool("verify")
    )
    public static let contract = ControlRoute(
        .contract,
        "GET",
        "contract",
        answer: ContractReport.self,
        errors: [.noContract],
        doc: "The session's exchanges that break the --openapi document, each with its violations.",
        client: "contractViolations()",
        mcp: .tool("check_contract")
    )
    public static let sessions = ControlRoute(
        .sessions,
        "GET",
        "sessions",
        answer: SessionList.self,
        doc: "The sessions the daemon keeps, with their scenario, journal size, runtime stubs and last activity.",
        client: "sessions()",
        mcp: .tool("list_sessions")
    )
    public static let reload = ControlRoute(
        .reload,
        "POST",
        "reload",
        answer: ReloadResult.self,
        errors: [.reloadUnavailable, .invalidScenario],
        doc: "Reload configs and mock sets from disk, as SIGHUP does; a broken file keeps the old version serving.",
        client: "reload()",
        mcp: .tool("reload")
    )
    public static let listWebSockets = ControlRoute(
        .listWebSockets,
        "GET",
        "ws",
        parameters: [.query("all", ControlParameter.boolean, "`true`: every session's")],
        answer: WebSocketList.self,
        doc: "The session's open WebSockets, oldest first, with the frames each way.",
        client: "webSockets(allSessions:)",
        mcp: .tool("list_websockets")
    )
    public static let sendWebSocket = ControlRoute(
        .sendWebSocket,
        "POST",
        "ws/send",
        request: WebSocketPush.self,
        answer: WebSocketDelivery.self,
        doc: "Send a message (text, json or base64 binary) to the session's open WebSockets, on path when given.",
        client: "push(text:path:)",
        mcp: .tool("push_websocket")
    )
    public static let closeWebSockets = ControlRoute(
        .closeWebSockets,
        "POST",
        "ws/close",
        request: WebSocketCloseRequest.self,
        requestOptional: true,
        answer: WebSocketClosed.self,
        doc: "Close the session's open WebSockets (on path when given) with a close code and reason.",
        client: "closeWebSockets(code:reason:path:)",
        mcp: .tool("close_websockets")
    )
    public static let release = ControlRoute(
        .release,
        "POST",
        "release",
        request: ReleaseRequest.self,
        requestOptional: true,
        answer: Released.self,
        doc: "Answer the session's held requests (hold steps: long polls) now, those for path only when given.",
        client: "release(path:)",
        mcp: .tool("release_held")
    )
    public static let emit = ControlRoute(
        .emit,
        "POST",
        "emit",
        request: EmitRequest.self,
        answer: EmitResult.self,
        errors: [.pushesUnavailable],
        createsSession: true,
        doc:
            "Push to the session's open connections now or after a delay, as a stub's emit does: WebSocket messages, Server-Sent Events, webhooks; each push's channel, target, due time and open connections.",
        client: "emit(_:)",
        mcp: .tool("emit")
    )
    public static let recordStatus = ControlRoute(
        .recordStatus,
        "GET",
        "record",
        answer: RecordStatus.self,
        errors: [.notRecording],
        doc: "The recording of mockd record or --record-misses: its set, HAR file, upstream and counts.",
        client: "recordStatus()",
        mcp: .tool("record_status")
    )
    public static let flushRecording = ControlRoute(
        .flushRecording,
        "POST",
        "record/flush",
        answer: RecordFlush.self,
        errors: [.notRecording, .flushFailed],
        doc: "Write the recording's HAR and compile its mock set now; recording goes on.",
        client: "flushRecording()",
        mcp: .tool("flush_recording")
    )
    public static let openAPI = ControlRoute(
        .openAPI,
        "GET",
        "openapi.json",
        answer: JSONValue.self,
        doc: "This document: the control API as OpenAPI 3.1.",
        client: "openAPIDocument()",
        mcp: .excluded("the document the tools are made from; tools/list describes them already")
    )

    /// Every route, in the order of the OpenAPI document and the docs.
    public static let all: [AnyControlRoute] = [
        health.erased, scenarios.erased, currentScenario.erased, useScenario.erased, answerSource.erased,
        listStubs.erased, addStub.erased, removeStubs.erased, getStub.erased, removeStub.erased,
        listGroups.erased, replaceGroup.erased, addToGroup.erased, removeGroup.erased, dropSession.erased,
        reset.erased, readClock.erased, moveClock.erased, readSwitches.erased, setSwitches.erased,
        listResources.erased, getResource.erased, journal.erased, journalHAR.erased, journalStream.erased,
        journalEntry.erased, unmatched.erased, coverage.erased, verify.erased, contract.erased, sessions.erased,
        reload.erased, listWebSockets.erased, sendWebSocket.erased, closeWebSockets.erased, release.erased,
        emit.erased, recordStatus.erased, flushRecording.erased, openAPI.erased,
    ]

    /// The row of `id`.
    public static func route(_ id: ControlRouteID) -> AnyControlRoute {
        all.first { $0.id == id }!
    }
}
