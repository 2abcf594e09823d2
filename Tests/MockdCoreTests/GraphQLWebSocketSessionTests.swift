import Foundation
import MockdFormat
import Testing

@testable import MockdCore

/// The server side of GraphQL over WebSocket in process: what `GraphQLWebSocketSession` answers to each message of
/// `graphql-transport-ws` and the older `graphql-ws`, exactly, including the protocol's close codes.
struct GraphQLWebSocketSessionTests {
    typealias Reaction = GraphQLWebSocketSession.Reaction

    static let script = GraphQLWebSocketScript(
        subscriptions: [
            GraphQLSubscriptionEntry(
                operationName: "OnMessage",
                variables: .object(["room": .string("general"), "limit": .int(2)]),
                events: [
                    GraphQLSubscriptionEvent(after: 100, data: .object(["text": .string("delivered")])),
                    GraphQLSubscriptionEvent(after: 250, data: .object(["text": .string("read")])),
                ],
                complete: true
            ),
            GraphQLSubscriptionEntry(
                operationName: "OnTyping",
                events: [
                    GraphQLSubscriptionEvent(
                        payload: .object(["errors": .array([.object(["message": .string("no")])])])
                    )
                ]
            ),
        ],
        ackPayload: .object(["server": .string("mockd")])
    )

    static func text(_ json: String) -> WebSocketMessage { .text(json) }

    @Test func acknowledgesPingsAndPlaysTheOperationWithTheClientsId() {
        let session = GraphQLWebSocketSession(script: Self.script)
        #expect(
            session.receive(Self.text(#"{"type":"connection_init","payload":{}}"#))
                == [
                    Reaction.send(
                        afterMs: 0,
                        message: #"{"payload":{"server":"mockd"},"type":"connection_ack"}"#,
                        subscription: nil
                    )
                ]
        )
        #expect(
            session.receive(Self.text(#"{"type":"ping","payload":{"n":1}}"#))
                == [Reaction.send(afterMs: 0, message: #"{"payload":{"n":1},"type":"pong"}"#, subscription: nil)]
        )
        // Variables in another order and another document text: the same operation.
        let subscribe =
            #"{"id":"a1","type":"subscribe","payload":{"operationName":"OnMessage","query":"subscription OnMessage($room: String!, $limit: Int) {  message(room: $room, limit: $limit) { text } }","variables":{"limit":2,"room":"general"}}}"#
        #expect(
            session.receive(Self.text(subscribe)) == [
                Reaction.send(
                    afterMs: 100,
                    message: #"{"id":"a1","payload":{"data":{"text":"delivered"}},"type":"next"}"#,
                    subscription: "a1"
                ),
                Reaction.send(
                    afterMs: 350,
                    message: #"{"id":"a1","payload":{"data":{"text":"read"}},"type":"next"}"#,
                    subscription: "a1"
                ),
                Reaction.send(afterMs: 350, message: #"{"id":"a1","type":"complete"}"#, subscription: "a1", ends: true),
            ]
        )
        #expect(session.isActive("a1"))
        #expect(session.receive(Self.text(#"{"id":"a1","type":"complete"}"#)) == [])
        #expect(!session.isActive("a1"))
    }

    @Test func anOperationWithoutAnEntryIsAnErrorNamingWhatTheEndpointHas() {
        let session = GraphQLWebSocketSession(script: Self.script)
        _ = session.receive(Self.text(#"{"type":"connection_init"}"#))
        let reactions = session.receive(
            Self.text(
                #"{"id":"2","type":"subscribe","payload":{"query":"subscription OnMessage($room: String!) { message(room: $room) { text } }","variables":{"room":"random"}}}"#
            )
        )
        #expect(
            reactions == [
                .send(
                    afterMs: 0,
                    message:
                        #"{"id":"2","payload":[{"message":"mockd: no recorded subscription answers subscription OnMessage with variables {\"room\":\"random\"} (the endpoint has: OnMessage {\"limit\":2,\"room\":\"general\"}; OnTyping)"}],"type":"error"}"#,
                    subscription: nil
                )
            ]
        )
        #expect(!session.isActive("2"))
    }

    @Test func theOlderProtocolStartsAndStopsWithDataAndComplete() {
        let session = GraphQLWebSocketSession(script: Self.script)
        _ = session.receive(Self.text(#"{"type":"connection_init"}"#))
        #expect(
            session.receive(
                Self.text(#"{"id":"7","type":"start","payload":{"query":"subscription OnTyping { typing }"}}"#)
            ) == [
                Reaction.send(
                    afterMs: 0,
                    message: #"{"id":"7","payload":{"errors":[{"message":"no"}]},"type":"data"}"#,
                    subscription: "7"
                )
            ]
        )
        #expect(
            session.receive(Self.text(#"{"id":"7","type":"stop"}"#))
                == [Reaction.send(afterMs: 0, message: #"{"id":"7","type":"complete"}"#, subscription: nil)]
        )
        #expect(
            session.receive(Self.text(#"{"type":"connection_terminate"}"#)) == [Reaction.close(code: 1000, reason: "")]
        )
    }

    @Test func protocolViolationsCloseWithTheProtocolsCodes() {
        let session = GraphQLWebSocketSession(script: Self.script)
        let subscribe = #"{"id":"1","type":"subscribe","payload":{"query":"subscription OnTyping { typing }"}}"#
        #expect(session.receive(Self.text(subscribe)) == [Reaction.close(code: 4401, reason: "Unauthorized")])
        _ = session.receive(Self.text(#"{"type":"connection_init"}"#))
        #expect(
            session.receive(Self.text(#"{"type":"connection_init"}"#))
                == [Reaction.close(code: 4429, reason: "Too many initialisation requests")]
        )
        #expect(session.receive(Self.text(subscribe)).count == 1)
        #expect(
            session.receive(Self.text(subscribe)) == [
                Reaction.close(code: 4409, reason: "Subscriber for 1 already exists")
            ]
        )
        #expect(
            session.receive(Self.text("not json")) == [Reaction.close(code: 4400, reason: "Invalid message received")]
        )
        #expect(session.receive(.binary(Data([1]))) == [Reaction.close(code: 4400, reason: "Invalid message received")])
        #expect(
            session.receive(Self.text(#"{"type":"shout"}"#)) == [
                Reaction.close(code: 4400, reason: "Invalid message received")
            ]
        )
    }
}
