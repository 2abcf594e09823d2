import CMicroHTTPD
import Dispatch
import Foundation
import MockdCore
import MockdFormat
import MockdPlatform

/// Runs every open WebSocket on one thread: an event loop (`EventPoller`: poll(2)) over the upgraded sockets, a timer heap for
/// scripted steps, and a command queue for pushes from the control API.
///
/// No WebSocket holds a libmicrohttpd worker: after the handshake the socket is handed over here, and
/// 1,000 idle connections cost 1,000 poller registrations, not threads.
final class WebSocketReactor: WebSocketHub, @unchecked Sendable {
    /// One upgraded connection; touched only on the reactor thread.
    private final class Connection {
        let id: Int
        let socket: Int32
        let handle: OpaquePointer
        let session: String
        let path: String
        let stubID: String?
        let script: WebSocketScript
        let connectionNumber: Int
        var parser: WebSocketFrameParser
        var outbox: [UInt8] = []
        var wantsWrite = false
        /// Set once a close frame was sent: the connection ends when the client answers or after a grace period.
        var closeSent = false
        /// Stop sending once the outbox is flushed: the close handshake is over, or the client broke the protocol.
        var closeAfterFlush = false
        /// Our side is shut down (`SHUT_WR`); what the client still sends is read and dropped until it closes too, so
        /// the kernel never answers its unread bytes with a reset that would hide our close frame (RFC 6455 §7.1.1).
        var lingering = false
        var firedOnce: Set<Int> = []
        /// Replies' `emit`, compiled on first use (the script was checked when it loaded).
        var replyEmissions: [Int: Emissions] = [:]
        /// GraphQL over WebSocket, when the script speaks it (`websocket.graphql`).
        var graphQL: GraphQLWebSocketSession?

        init(
            id: Int,
            socket: Int32,
            handle: OpaquePointer,
            session: String,
            path: String,
            stubID: String?,
            script: WebSocketScript,
            connectionNumber: Int,
            maxMessageBytes: Int
        ) {
            self.id = id
            self.socket = socket
            self.handle = handle
            self.session = session
            self.path = path
            self.stubID = stubID
            self.script = script
            self.connectionNumber = connectionNumber
            self.parser = WebSocketFrameParser(maxMessageBytes: maxMessageBytes)
        }
    }

    /// Posted from other threads; the connection handle inside is only used on the reactor thread.
    private enum Command: @unchecked Sendable {
        case adopt(
            socket: Int32,
            handle: OpaquePointer,
            extra: Data,
            session: String,
            path: String,
            stubID: String?,
            script: WebSocketScript,
            number: Int
        )
        case send(WebSocketMessage, session: String, path: String?)
        case close(code: Int, reason: String, session: String, path: String?)
        /// A push (`emit[].websocket`) to the session's connections the selector matches.
        case push(Push.WebSocketAction, selector: ConnectionSelector, cause: PushCause)
        /// Another push (an event, a webhook), run here in turn so pushes happen (and are journaled) in their order.
        case perform(@Sendable () -> Void)
        case stop
    }

    /// Something due for a connection; timers due at the same moment run in scheduling order.
    private struct Timer {
        enum Action {
            /// A scripted step, with the client message it replies to (what `echo` sends back), if any.
            case step(WebSocketStep, replyingTo: WebSocketMessage?)
            /// The grace period after our close frame is over: end the connection whether or not the client answered.
            case closeGraceOver
            /// A GraphQL subscription's result (`GraphQLWebSocketSession`), sent while `subscription` runs.
            case graphQL(message: String, subscription: String?, ends: Bool)
        }

        let deadline: UInt64
        let connection: Int
        let action: Action
    }

    private let engine: MockEngine
    private let logger: Logger
    private let maxMessageBytes: Int
    private let poller = EventPoller()
    private let commands = Mutex<[Command]>([])
    /// What the control API can see, mirrored from the reactor thread.
    private let published = Mutex<[Int: (info: WebSocketConnectionInfo, framesIn: Int, framesOut: Int)]>([:])
    private let stopped = DispatchSemaphore(value: 0)
    private var connections: [Int: Connection] = [:]
    private var bySocket: [Int32: Int] = [:]
    private var timers = DeadlineHeap<Timer>()
    private var nextID = 0
    private var running = true
    /// Schedules what replies push (`emit`); set by the server before the daemon starts.
    var pushes: PushDispatcher?

    init(engine: MockEngine, logger: Logger, maxMessageBytes: Int = 1 << 20) {
        self.engine = engine
        self.logger = logger
        self.maxMessageBytes = maxMessageBytes
        ThreadName.startThread(named: "mockd-websocket") { self.run() }
    }

    // MARK: - Called from other threads

    /// Takes over an upgraded socket (called from the libmicrohttpd upgrade callback).
    func adopt(
        socket: Int32,
        handle: OpaquePointer,
        extra: Data,
        session: String,
        path: String,
        stubID: String?,
        script: WebSocketScript,
        number: Int
    ) {
        post(
            .adopt(
                socket: socket,
                handle: handle,
                extra: extra,
                session: session,
                path: path,
                stubID: stubID,
                script: script,
                number: number
            )
        )
    }

    /// Closes every WebSocket with 1001 and ends the thread; returns once all sockets are released.
    func stop() {
        post(.stop)
        stopped.wait()
    }

    func connections(session: String?) -> [WebSocketConnectionInfo] {
        published.withLock { entries in
            entries.values.filter { session == nil || $0.info.session == session }.sorted { $0.info.id < $1.info.id }
                .map {
                    WebSocketConnectionInfo(
                        id: $0.info.id,
                        session: $0.info.session,
                        path: $0.info.path,
                        connectionNumber: $0.info.connectionNumber,
                        openedAt: $0.info.openedAt,
                        framesIn: $0.framesIn,
                        framesOut: $0.framesOut
                    )
                }
        }
    }

    func send(_ message: WebSocketMessage, session: String, path: String?) -> Int {
        let count = matching(session: session, path: path)
        post(.send(message, session: session, path: path))
        return count
    }

    func close(code: Int, reason: String, session: String, path: String?) -> Int {
        let count = matching(session: session, path: path)
        post(.close(code: code, reason: reason, session: session, path: path))
        return count
    }

    /// Carries out a push to the open WebSockets of the cause's session that `selector` matches; one that matches none
    /// is journaled as reaching none.
    func push(_ action: Push.WebSocketAction, selector: ConnectionSelector, cause: PushCause) {
        post(.push(action, selector: selector, cause: cause))
    }

    /// Runs `work` on the reactor thread after the commands posted before it (the push order, `PushDispatcher`).
    func perform(_ work: @escaping @Sendable () -> Void) {
        post(.perform(work))
    }

    /// How many open WebSockets of `session` the selector matches.
    func count(session: String, selector: ConnectionSelector) -> Int {
        published.withLock { $0.values.filter { $0.info.session == session && selector.matches($0.info.path) }.count }
    }

    private func matching(session: String, path: String?) -> Int {
        published.withLock {
            $0.values.filter { $0.info.session == session && (path == nil || $0.info.path == path) }.count
        }
    }

    private func post(_ command: Command) {
        commands.withLock { $0.append(command) }
        poller.wake()
    }

    // MARK: - Reactor thread

    private func run() {
        while running {
            let timeout =
                timers.nextDeadline.map {
                    Int32(clamping: max(0, Int64($0) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1_000_000 + 1)
                } ?? -1
            let woken = poller.wait(timeoutMs: timeout) { event in
                guard let id = bySocket[event.descriptor], let connection = connections[id] else { return }
                if event.writable { flush(connection) }
                // `flush` may have ended the connection.
                if event.readable, connections[id] != nil { receive(connection) }
            }
            if woken {
                for command in commands.withLock({ commands in
                    defer { commands.removeAll() }
                    return commands
                }) { execute(command) }
            }
            fireDueTimers()
        }
        for connection in Array(connections.values) { teardown(connection) }
        stopped.signal()
    }

    private func execute(_ command: Command) {
        switch command {
        case .adopt(let socket, let handle, let extra, let session, let path, let stubID, let script, let number):
            nextID += 1
            let connection = Connection(
                id: nextID,
                socket: socket,
                handle: handle,
                session: session,
                path: path,
                stubID: stubID,
                script: script.script(forConnection: number),
                connectionNumber: number,
                maxMessageBytes: maxMessageBytes
            )
            FileDescriptor(rawValue: socket).setNonBlocking()
            connections[connection.id] = connection
            bySocket[socket] = connection.id
            PlatformSocket.noSignalOnWrite(socket)
            poller.add(socket)
            published.withLock {
                $0[connection.id] = (
                    WebSocketConnectionInfo(
                        id: connection.id,
                        session: session,
                        path: path,
                        connectionNumber: number,
                        openedAt: Date(),
                        framesIn: 0,
                        framesOut: 0
                    ), 0, 0
                )
            }
            if let graphQL = connection.script.graphql ?? script.graphql {
                connection.graphQL = GraphQLWebSocketSession(script: graphQL)
            }
            schedule(connection.script.steps ?? [], for: connection, replyingTo: nil)
            if !extra.isEmpty { extra.withUnsafeBytes { process(connection, connection.parser.feed($0)) } }
        case .send(let message, let session, let path):
            for connection in connections.values
            where connection.session == session && (path == nil || connection.path == path) && !connection.closeSent {
                sendMessage(message, on: connection)
            }
        case .close(let code, let reason, let session, let path):
            for connection in connections.values
            where connection.session == session && (path == nil || connection.path == path) {
                sendClose(code: code, reason: reason, on: connection)
            }
        case .push(let action, let selector, let cause):
            let reached = connections.values.filter {
                $0.session == cause.session && selector.matches($0.path) && !$0.closeSent
            }.sorted { $0.id < $1.id }
            for connection in reached {
                switch action {
                case .message(let message): sendMessage(message, on: connection, cause: cause)
                case .close(let code, let reason): sendClose(code: code, reason: reason, on: connection, cause: cause)
                }
            }
            if reached.isEmpty {
                let (opcode, payload) = Self.journaled(action)
                engine.journalPush(
                    "WS-OUT",
                    target: selector.description,
                    headers: HTTPHeaders([("Opcode", opcode)]),
                    body: payload,
                    cause: cause,
                    stubID: nil,
                    note:
                        "reached no connection: the session '\(cause.session)' has no open WebSocket on \(selector.description)"
                )
            }
        case .perform(let work):
            work()
        case .stop:
            for connection in Array(connections.values) where !connection.closeSent {
                sendClose(code: 1001, reason: "mockd is stopping", on: connection)
            }
            running = false
        }
    }

    /// Reads what one connection sent, at most 64 KiB per turn so one busy client cannot starve the others
    /// (poll is level-triggered: the rest is read on the next turn).
    private func receive(_ connection: Connection) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var turns = 0
        while connections[connection.id] != nil, turns < 4 {
            turns += 1
            let count = Foundation.recv(connection.socket, &buffer, buffer.count, 0)
            if count > 0, connection.lingering {
                continue
            } else if count > 0 {
                let events = buffer.withUnsafeBytes {
                    connection.parser.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count]))
                }
                process(connection, events)
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                // The client went away (without a close frame, or after ours).
                teardown(connection)
                return
            } else {
                return
            }
        }
    }

    private func process(_ connection: Connection, _ events: [WebSocketFrameParser.Event]) {
        for event in events {
            guard connections[connection.id] != nil else { return }
            switch event {
            case .message(let message):
                let sequence = journal(connection, incoming: true, message: message)
                if let session = connection.graphQL { react(to: session.receive(message), on: connection) }
                // Each message's `regex` replies share one matching budget (`BoundedRegex`).
                RegexBudget.startRequest()
                for (index, reply) in (connection.script.replies ?? []).enumerated() where reply.when.matches(message) {
                    if reply.once == true {
                        guard connection.firedOnce.insert(index).inserted else { continue }
                    }
                    schedule(reply.then, for: connection, replyingTo: message)
                    caused(by: reply, index: index, message: message, sequence: sequence, on: connection)
                }
            case .ping(let payload):
                queue(WebSocketFrame.encode(opcode: 0xA, payload: payload), on: connection)
            case .pong:
                break
            case .close(let code, let reason):
                engine.recordWebSocketFrame(
                    session: connection.session,
                    path: connection.path,
                    incoming: true,
                    opcode: "close",
                    payload: Data("\(code.map(String.init) ?? "") \(reason)".utf8),
                    stubID: connection.stubID,
                    connection: connection.connectionNumber
                )
                if connection.closeSent {
                    teardown(connection)
                } else {
                    // Echo the code (RFC 6455 §5.5.1), then end the connection once the frame is out.
                    let echo = code.map { [1005, 1006, 1015].contains($0) ? 1000 : $0 } ?? 1000
                    sendClose(code: echo, reason: "", on: connection)
                    connection.closeAfterFlush = true
                    flush(connection)
                }
            case .failure(let code, let reason):
                logger.debug("websocket \(connection.path): closing with \(code): \(reason)")
                sendClose(code: code, reason: reason, on: connection)
                connection.closeAfterFlush = true
                flush(connection)
            }
        }
    }

    /// What a reply's message causes beyond this connection: its state change (`state`) and pushes (`emit`), linked in
    /// the journal to the message's entry (`sequence`).
    private func caused(
        by reply: WebSocketReply,
        index: Int,
        message: WebSocketMessage,
        sequence: Int,
        on connection: Connection
    ) {
        if let change = reply.state {
            engine.applyStateChange(change, session: connection.session, stubID: connection.stubID, causedBy: sequence)
        }
        guard let emit = reply.emit, let pushes else { return }
        let emissions: Emissions
        if let compiled = connection.replyEmissions[index] {
            emissions = compiled
        } else if case .success(let compiled) = Emissions.compile(emit) {
            connection.replyEmissions[index] = compiled
            emissions = compiled
        } else {
            return
        }
        pushes.schedule(
            engine.pushes(emissions, replyingTo: message, path: connection.path, session: connection.session),
            cause: PushCause(session: connection.session, sequence: sequence, emittedBy: connection.stubID)
        )
    }

    /// Schedules `steps` one after another, each `after` ms after the previous one, from now.
    /// - Parameter message: The client message the steps reply to (what `echo` sends back).
    private func schedule(_ steps: [WebSocketStep], for connection: Connection, replyingTo message: WebSocketMessage?) {
        var offset = 0.0
        let now = DispatchTime.now().uptimeNanoseconds
        for step in steps {
            offset += min(max(0, step.after ?? 0), 3_600_000)
            push(
                Timer(
                    deadline: now + UInt64(offset * 1_000_000),
                    connection: connection.id,
                    action: .step(step, replyingTo: message)
                )
            )
        }
    }

    /// Carries out what the connection's GraphQL protocol says to a message: results timed from now, or a close.
    private func react(to reactions: [GraphQLWebSocketSession.Reaction], on connection: Connection) {
        let now = DispatchTime.now().uptimeNanoseconds
        for reaction in reactions {
            switch reaction {
            case .send(let afterMs, let message, let subscription, let ends):
                push(
                    Timer(
                        deadline: now + UInt64(afterMs * 1_000_000),
                        connection: connection.id,
                        action: .graphQL(message: message, subscription: subscription, ends: ends)
                    )
                )
            case .close(let code, let reason):
                sendClose(code: code, reason: reason, on: connection)
                connection.closeAfterFlush = true
                flush(connection)
            }
        }
    }

    private func fireDueTimers() {
        let now = DispatchTime.now().uptimeNanoseconds
        while let timer = timers.popDue(now: now) {
            guard let connection = connections[timer.connection] else { continue }
            if case .graphQL(let message, let subscription, let ends) = timer.action {
                guard !connection.closeSent, let session = connection.graphQL else { continue }
                if let subscription {
                    guard session.isActive(subscription) else { continue }
                    if ends { session.ended(subscription) }
                }
                sendMessage(.text(message), on: connection)
                continue
            }
            guard case .step(let step, let trigger) = timer.action else {
                teardown(connection)
                continue
            }
            guard !connection.closeSent else { continue }
            if let payload = step.send {
                sendMessage(payload.message, on: connection)
            } else if step.echo == true, let trigger {
                sendMessage(trigger, on: connection)
            } else if let close = step.close {
                sendClose(code: close.code ?? 1000, reason: close.reason ?? "", on: connection)
            } else if step.drop == true {
                engine.recordWebSocketFrame(
                    session: connection.session,
                    path: connection.path,
                    incoming: false,
                    opcode: "drop",
                    payload: Data(),
                    stubID: connection.stubID,
                    connection: connection.connectionNumber
                )
                teardown(connection)
            }
        }
    }

    private func sendMessage(_ message: WebSocketMessage, on connection: Connection, cause: PushCause? = nil) {
        journal(connection, incoming: false, message: message, cause: cause)
        queue(WebSocketFrame.message(message), on: connection)
    }

    private func sendClose(code: Int, reason: String, on connection: Connection, cause: PushCause? = nil) {
        guard !connection.closeSent else { return }
        connection.closeSent = true
        engine.recordWebSocketFrame(
            session: connection.session,
            path: connection.path,
            incoming: false,
            opcode: "close",
            payload: Data("\(code) \(reason)".utf8),
            stubID: connection.stubID,
            connection: connection.connectionNumber,
            causedBy: cause?.sequence,
            note: cause?.note
        )
        queue(WebSocketFrame.close(code: code, reason: reason), on: connection)
        // The client should answer with its close frame; do not wait for it forever.
        push(
            Timer(
                deadline: DispatchTime.now().uptimeNanoseconds + 2_000_000_000,
                connection: connection.id,
                action: .closeGraceOver
            )
        )
    }

    /// Journals a data frame (a pushed one linked to its cause) and counts it.
    /// - Returns: The entry's sequence number.
    @discardableResult
    private func journal(
        _ connection: Connection,
        incoming: Bool,
        message: WebSocketMessage,
        cause: PushCause? = nil
    ) -> Int {
        let (opcode, payload) = Self.journaled(.message(message))
        let sequence = engine.recordWebSocketFrame(
            session: connection.session,
            path: connection.path,
            incoming: incoming,
            opcode: opcode,
            payload: payload,
            stubID: connection.stubID,
            connection: connection.connectionNumber,
            causedBy: cause?.sequence,
            note: cause?.note
        )
        published.withLock { entries in
            if incoming { entries[connection.id]?.framesIn += 1 } else { entries[connection.id]?.framesOut += 1 }
        }
        return sequence
    }

    /// A frame's opcode and payload as the journal keeps them (`text`, `binary`, or `close` with `CODE reason`).
    private static func journaled(_ action: Push.WebSocketAction) -> (opcode: String, payload: Data) {
        switch action {
        case .message(.text(let text)): return ("text", Data(text.utf8))
        case .message(.binary(let data)): return ("binary", data)
        case .close(let code, let reason): return ("close", Data("\(code) \(reason)".utf8))
        }
    }

    /// Output waiting for a client that does not read is capped (4 MiB): beyond it the client is cut off,
    /// so a client flooding pings without reading the pongs cannot grow the daemon's memory.
    private static let maxOutboxBytes = 4 << 20

    private func queue(_ bytes: [UInt8], on connection: Connection) {
        guard connection.outbox.count + bytes.count <= WebSocketReactor.maxOutboxBytes else {
            logger.debug("websocket \(connection.path): client is not reading; dropping the connection")
            teardown(connection)
            return
        }
        connection.outbox += bytes
        flush(connection)
    }

    private func flush(_ connection: Connection) {
        while !connection.outbox.isEmpty {
            let written = connection.outbox.withUnsafeBytes {
                PlatformSocket.send(connection.socket, $0.baseAddress!, $0.count)
            }
            if written > 0 {
                connection.outbox.removeFirst(written)
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                setWriteInterest(true, on: connection)
                return
            } else {
                teardown(connection)
                return
            }
        }
        setWriteInterest(false, on: connection)
        if connection.closeAfterFlush, !connection.lingering {
            // The client reads our close frame, sees the end of the stream and closes; `receive` then ends it here.
            connection.lingering = true
            PlatformSocket.shutdownWriting(connection.socket)
        }
    }

    private func setWriteInterest(_ wanted: Bool, on connection: Connection) {
        guard connection.wantsWrite != wanted else { return }
        connection.wantsWrite = wanted
        poller.setWriteInterest(wanted, for: connection.socket)
    }

    /// Ends a connection: unregisters it and lets libmicrohttpd close the socket (never `close()` directly).
    private func teardown(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        bySocket.removeValue(forKey: connection.socket)
        poller.remove(connection.socket)
        _ = published.withLock { $0.removeValue(forKey: connection.id) }
        _ = CMicroHTTPD_upgradeClose(connection.handle)
    }

    private func push(_ timer: Timer) {
        timers.push(timer, deadline: timer.deadline)
    }
}
