public import Foundation
public import MockdFormat

/// No request body; or, as an answer, none either (`204 No Content`).
public struct NoBody: Codable, Sendable, Equatable {
    public init() {}
}

/// A path, query or header parameter of a control route.
public struct ControlParameter: Sendable {
    public enum Location: String, Sendable {
        case path, query, header
    }

    public var name: String
    public var location: Location
    /// Its JSON Schema (as OpenAPI 3.1 writes it): `{"type": "integer", "minimum": 1}`.
    public var schema: JSONValue
    public var doc: String
    /// The start of the message for a value that does not fit (the value follows in quotes); `nil` for the usual
    /// `NAME must be a whole number in 1–10000, got`.
    public var invalid: String?

    public static func path(
        _ name: String,
        _ schema: JSONValue,
        _ doc: String,
        invalid: String? = nil
    ) -> ControlParameter {
        ControlParameter(name: name, location: .path, schema: schema, doc: doc, invalid: invalid)
    }

    public static func query(
        _ name: String,
        _ schema: JSONValue,
        _ doc: String,
        invalid: String? = nil
    ) -> ControlParameter {
        ControlParameter(name: name, location: .query, schema: schema, doc: doc, invalid: invalid)
    }

    public static func header(
        _ name: String,
        _ schema: JSONValue,
        _ doc: String,
        invalid: String? = nil
    ) -> ControlParameter {
        ControlParameter(name: name, location: .header, schema: schema, doc: doc, invalid: invalid)
    }

    /// `true` / `false`.
    public static let boolean: JSONValue = ["type": "boolean"]
}

/// What a route answers with on success.
public enum ControlAnswerKind: Sendable, Equatable {
    /// `application/json`: the answer type, encoded.
    case json
    /// `204 No Content`.
    case noContent
    /// `text/event-stream`: Server-Sent Events whose `data:` lines are JSON (the answer type, for `event: entry`).
    case eventStream
}

/// A call its answer leads to (an OpenAPI link): the operation, and where each of its parameters comes from, as a
/// runtime expression (`$response.body#/id`, `$request.path.name`).
public struct ControlLink: Sendable, Equatable {
    public var name: String
    public var route: ControlRouteID
    public var parameters: [String: String]

    public init(_ name: String, to route: ControlRouteID, _ parameters: [String: String]) {
        self.name = name
        self.route = route
        self.parameters = parameters
    }
}

/// How `mockd mcp` offers a route to a coding agent.
public enum MCPExposure: Sendable, Equatable {
    /// As the tool of this name.
    case tool(String)
    /// Not as a tool, for the reason given (said in docs/05-dashboard-and-mcp.md).
    case excluded(String)
}

/// A second MCP tool on a route, for a common call: its own arguments (`Arguments`, spread as the tool's), made into
/// the route's body by `body`. `fail_requests` adds the runtime stub that fails the next requests to a path.
public struct ControlShortcut: Sendable {
    /// Arguments the shortcut cannot make a body of: its one-line message is the tool's error.
    public struct Refusal: Error, Sendable {
        public var message: String

        public init(_ message: String) {
            self.message = message
        }
    }

    /// The tool's name.
    public var name: String
    /// One line: what the tool does (its MCP description).
    public var doc: String
    /// The arguments' type (a struct whose properties are the tool's arguments).
    public var argumentsType: any (Codable & Sendable).Type
    /// The route's body for the arguments, as JSON; `nil` to call `otherwise` instead.
    /// - Throws: `DecodingError` when the arguments do not decode as `argumentsType`; `Refusal` for arguments the
    ///   shortcut cannot use together.
    public var body: @Sendable (Data) throws -> JSONValue?
    /// The route (without a body) a call goes to when `body` gives none: `set_clock` with nothing to change reads the
    /// clock.
    public var otherwise: ControlRouteID?

    public init<Arguments: Codable & Sendable>(
        _ name: String,
        arguments: Arguments.Type,
        doc: String,
        otherwise: ControlRouteID? = nil,
        body: @escaping @Sendable (Arguments) throws -> JSONValue?
    ) {
        self.name = name
        self.doc = doc
        argumentsType = Arguments.self
        self.otherwise = otherwise
        self.body = { data in try body(try JSONDecoder().decode(Arguments.self, from: data)) }
    }
}

/// One route of the control API, whatever its types: what the server dispatches on, the OpenAPI document and the MCP
/// tools are made from, and the tests walk.
public struct AnyControlRoute: Sendable {
    public var id: ControlRouteID
    /// `GET`, `PUT`, `POST`, `DELETE`.
    public var method: String
    /// The path after `/__mockd/`, with `{name}` for a path parameter: `stubs/{id}`.
    public var path: String
    /// Path parameters (in the order of the path), then query and header parameters. Every route also takes the
    /// session (`X-Mockd-Session` or `?session=`).
    public var parameters: [ControlParameter]
    /// The request body's type; `nil` for none.
    public var requestType: (any (Codable & Sendable).Type)?
    /// Whether the body may be left out (an empty body reads as `{}`).
    public var requestOptional: Bool
    /// The MCP tool's argument that carries a body whose schema lists no properties (a stub); a body with properties
    /// is spread into the tool's arguments.
    public var bodyName: String
    /// The error a body that does not decode gets.
    public var invalidBody: ControlErrorCode
    /// The answer's type (for an event stream, the `data:` of its entries); `nil` for `204`.
    public var answerType: (any (Codable & Sendable).Type)?
    public var kind: ControlAnswerKind
    /// The success status: 200, 201 or 204.
    public var status: Int
    /// What the route itself may answer besides success (see `allErrors` for those every route may).
    public var errors: [ControlErrorCode]
    /// Whether a call creates the session it names: only calls that change a session do; reading an unknown session
    /// sees an empty one, so a typo in a test never evicts a live session (`--max-sessions`).
    public var createsSession: Bool
    /// One line: what the route does (the OpenAPI summary, the MCP tool's description).
    public var doc: String
    /// The `MockdClient` method that calls it.
    public var clientMethod: String
    public var mcp: MCPExposure
    /// More MCP tools on the route, for common calls (`fail_requests` on `POST /__mockd/stubs`).
    public var shortcuts: [ControlShortcut] = []
    /// The calls a success leads to.
    public var links: [ControlLink]

    /// A segment of `path`.
    public enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// `path` split at `/`.
    public var segments: [Segment] {
        path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}")
                ? .parameter(String(segment.dropFirst().dropLast())) : .literal(String(segment))
        }
    }

    /// Errors any call may get besides `errors`: a bad session id, the control token, a page refused, an evicted
    /// session; a body or parameter the route cannot use; a body over `--max-body`; for a route with a path
    /// parameter, `not_found` when it is empty.
    public var allErrors: [ControlErrorCode] {
        var all = errors
        var common: [ControlErrorCode] = [.invalidSession, .unauthorized, .forbidden, .sessionEvicted]
        if requestType != nil || !parameters.isEmpty { common.append(.badRequest) }
        if requestType != nil { common.append(.payloadTooLarge) }
        // An empty path parameter (`stubs/`) is a path no route has.
        if parameters.contains(where: { $0.location == .path }) { common.append(.notFound) }
        for code in common where !all.contains(code) { all.append(code) }
        return all.sorted { ($0.status, $0.rawValue) < ($1.status, $1.rawValue) }
    }
}

/// A control route with its request and answer types: the server's handler must take `Request` and give `Answer`,
/// the client's call sends the one and reads the other.
public struct ControlRoute<Request: Codable & Sendable, Answer: Codable & Sendable>: Sendable {
    public let erased: AnyControlRoute

    public var id: ControlRouteID { erased.id }

    init(
        _ id: ControlRouteID,
        _ method: String,
        _ path: String,
        parameters: [ControlParameter] = [],
        request: Request.Type = NoBody.self,
        requestOptional: Bool = false,
        bodyName: String = "body",
        invalidBody: ControlErrorCode = .badRequest,
        answer: Answer.Type,
        kind: ControlAnswerKind = .json,
        status: Int = 200,
        errors: [ControlErrorCode] = [],
        createsSession: Bool = false,
        doc: String,
        client: String,
        mcp: MCPExposure,
        shortcuts: [ControlShortcut] = [],
        links: [ControlLink] = []
    ) {
        erased = AnyControlRoute(
            id: id,
            method: method,
            path: path,
            parameters: parameters,
            requestType: Request.self == NoBody.self ? nil : Request.self,
            requestOptional: requestOptional,
            bodyName: bodyName,
            invalidBody: invalidBody,
            answerType: Answer.self == NoBody.self ? nil : Answer.self,
            kind: Answer.self == NoBody.self ? .noContent : kind,
            status: Answer.self == NoBody.self ? 204 : status,
            errors: errors,
            createsSession: createsSession,
            doc: doc,
            clientMethod: client,
            mcp: mcp,
            shortcuts: shortcuts,
            links: links
        )
    }
}
