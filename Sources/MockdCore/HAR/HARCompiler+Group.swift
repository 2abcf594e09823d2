import Foundation
import MockdFormat

/// The building blocks `HARCompiler` gathers entries into: stubs are grouped by request key (with host) and header
/// constraints, each group's entries split into variants by request body when `finish()` writes them.
extension HARCompiler {
    /// Stubs are grouped by request key (with host) and header constraints.
    struct GroupKey: Hashable {
        let key: RequestKey
        let constraints: [HeaderConstraint]
        /// A GraphQL operation's identity (`GraphQLOperation.identity`): its requests are one group whatever their
        /// bodies, told apart by variables as body variants are.
        var graphQL: String? = nil
    }

    /// Where each group sits in `ordered`, by its `GroupKey`: open addressing over 32-bit positions, the keys read from
    /// the groups themselves. A `[GroupKey: Int]` held a second copy of every key in a table up to 2.6 times the
    /// groups (25 MB at 100,000 groups, just doubled), which was most of an import's peak beside the recorded bodies.
    struct GroupTable {
        /// A position in `ordered`, or -1; the count is zero or a power of two, at most three quarters used.
        private var slots: [Int32] = []
        /// Each group's key hash, by position (to grow without hashing again).
        private var hashes: [Int] = []

        /// The position of the group whose key is `key`, if there is one.
        func position(of key: GroupKey, hash: Int, in groups: [Group]) -> Int? {
            guard !slots.isEmpty else { return nil }
            let mask = slots.count - 1
            var slot = hash & mask
            while slots[slot] >= 0 {
                let position = Int(slots[slot])
                if hashes[position] == hash, groups[position].groupKey == key { return position }
                slot = (slot + 1) & mask
            }
            return nil
        }

        /// Records the group just appended to `ordered` (its position is the count of groups recorded before it).
        mutating func append(hash: Int) {
            hashes.append(hash)
            if hashes.count * 4 > slots.count * 3 {
                slots = [Int32](repeating: -1, count: max(1024, slots.count * 2))
                for position in hashes.indices { place(position) }
            } else {
                place(hashes.count - 1)
            }
        }

        private mutating func place(_ position: Int) {
            let mask = slots.count - 1
            var slot = hashes[position] & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(position)
        }
    }

    struct RecordedResponse {
        let status: Int
        let headers: [String]
        let body: Data
        let mimeType: String?
        let time: Double?
        var webSocket: WebSocketScript? = nil
        /// A recorded `text/event-stream` answer as its events (`EventStreamRecorder`); then no body file is written.
        var eventStream: EventStream? = nil
        var fault: Fault? = nil
        var templated: TemplateMode? = nil
        /// Why this answer cannot be served (body not recorded, only a 304): written as the step's `miss`.
        var miss: String? = nil
        var conditionalOnly = false
        /// The recorded dates found in the answer (`DateFields`), written as the step's `dates`.
        var dates: MockSetFile.DatesEntry? = nil
        /// For a 304: the recorded request's `If-None-Match` / `If-Modified-Since` lines.
        var validators: [String] = []
        /// For a 304 whose body is the client's cached copy and no whole representation beside it: the copy's media type.
        var cachedCopy: String? = nil
        /// For a 206 holding part of the representation (or an unknown part), which part: it answers range requests
        /// inside it only, and this is the miss of any other request when no whole representation was recorded.
        var partial: String? = nil
        var rangeOnly: Bool { partial != nil }

        /// Whether the response carries `ETag` or `Last-Modified`.
        var hasValidators: Bool {
            headers.contains { line in
                let lower = line.asciiLowercased
                return lower.hasPrefix("etag:") || lower.hasPrefix("last-modified:")
            }
        }

        /// Whether this step is a whole representation a 304 or a partial 206 can stand for: a 2xx but 206, served.
        var isWholeRepresentation: Bool {
            (200..<300).contains(status) && status != 206 && miss == nil && fault == nil && webSocket == nil
        }
    }

    /// A recorded request body: the text (or params rebuilt as a form) and its canonical form.
    struct RecordedRequestBody {
        let bytes: Data
        let contentType: String?
        /// What tells requests apart: the canonical body, or a GraphQL operation's key.
        var canonical: Data
        /// Whether the exporter wrote bytes that were not UTF-8 as text, each invalid sequence a U+FFFD: the recorded
        /// text is all that is known of the body, and different bodies may have become the same text.
        var lossy = false
        /// What became of a `Content-Encoding` the request was recorded with.
        var coding: Coding?

        enum Coding {
            /// Stored decoded.
            case decoded
            /// The producer had decoded it already (the text is not coded data).
            case alreadyDecoded
            /// Neither decodes nor reads as decoded text (compressed bytes written as text).
            case undecodable
        }

        init(bytes: Data, contentType: String?, normalizer: RequestNormalizer) {
            self.bytes = bytes
            self.contentType = contentType
            canonical = BodyCanonicalizer.canonicalize(bytes, contentType: contentType, normalizer: normalizer)
        }

        /// The same bytes under `normalizer`, keeping what is known of how they were recorded.
        func with(bytes: Data, normalizer: RequestNormalizer) -> RecordedRequestBody {
            var body = RecordedRequestBody(bytes: bytes, contentType: contentType, normalizer: normalizer)
            body.lossy = lossy
            body.coding = coding
            return body
        }

        init(_ request: HARRequest) {
            self.init(decoding: request)
            guard let value = request.headers["content-encoding"], !bytes.isEmpty else { return }
            let codings = value.split(separator: ",").map { $0.trimmingWhitespace.asciiLowercased }.filter {
                !$0.isEmpty && $0 != "identity"
            }
            guard !codings.isEmpty else { return }
            var decoded: Data? = bytes
            for coding in codings.reversed() { decoded = decoded.flatMap { Decompression.decode($0, coding: coding) } }
            if let decoded {
                self = RecordedRequestBody(bytes: decoded, contentType: contentType, normalizer: .none)
                coding = .decoded
            } else {
                coding = lossy || String(data: bytes, encoding: .utf8) == nil ? .undecodable : .alreadyDecoded
            }
        }

        private init(decoding request: HARRequest) {
            let contentType = request.headers["content-type"] ?? request.postData?.mimeType
            var bytes = Data()
            if let post = request.postData {
                if let text = post.text, post.encoding == "base64",
                    let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters)
                {
                    bytes = decoded
                } else if let text = post.text {
                    bytes = Data(text.utf8)
                } else if !post.params.isEmpty {
                    // Params only (urlencoded or multipart): the form body, which compares by sorted pairs.
                    let pairs = post.params.map {
                        URLEncoding.encodeComponent(Array($0.name.utf8)) + "="
                            + URLEncoding.encodeComponent(Array($0.value.utf8))
                    }
                    bytes = Data(pairs.joined(separator: "&").utf8)
                }
            }
            self.init(bytes: bytes, contentType: contentType, normalizer: .none)
            if request.postData?.encoding != "base64",
                request.postData?.text?.unicodeScalars.contains("\u{FFFD}") == true
            {
                lossy = true
            }
        }
    }

    struct Group {
        var key: RequestKey
        let constraintLines: [String]
        var constraints: [HeaderConstraint] = []
        var entries: [(body: RecordedRequestBody, response: RecordedResponse, entry: Int)]
        /// For a GraphQL operation's group: the first request's method (the stub's) and each entry's operation, in order.
        var graphQLMethod: String?
        var graphQLOperations: [GraphQLOperation] = []

        init(
            key: RequestKey,
            constraintLines: [String],
            constraints: [HeaderConstraint] = [],
            entries: [(body: RecordedRequestBody, response: RecordedResponse, entry: Int)]
        ) {
            self.key = key
            self.constraintLines = constraintLines
            self.constraints = constraints
            self.entries = entries
        }

        struct Variant {
            /// The body that tells this variant apart (part of the key), or `nil` when every entry sent the same.
            let requestBody: RecordedRequestBody?
            var responses: [RecordedResponse]
            /// For a variant without `requestBody`: the body its first entry sent, when it sent one (`recordedBody`).
            var sentBody: RecordedRequestBody? = nil
            /// The entries, in order.
            var entries: [Int] = []
            /// Whether some entry's body was written as text with U+FFFD (`RecordedRequestBody.lossy`).
            var lossy = false
        }

        /// The key it is grouped by (`HARCompiler.append`).
        var groupKey: GroupKey {
            GroupKey(key: key, constraints: constraints, graphQL: graphQLOperations.first?.identity)
        }

        /// One variant when every entry carried the same body; one per distinct body otherwise, so that
        /// POSTs with different bodies never collapse into one stub.
        func variants() -> [Variant] {
            var order: [Data] = []
            var byBody: [Data: Variant] = [:]
            for (body, response, entry) in entries {
                if byBody[body.canonical] == nil {
                    order.append(body.canonical)
                    byBody[body.canonical] = Variant(requestBody: body, responses: [])
                }
                byBody[body.canonical]!.responses.append(response)
                byBody[body.canonical]!.entries.append(entry)
                if body.lossy { byBody[body.canonical]!.lossy = true }
            }
            if order.count == 1 {
                let only = byBody[order[0]]!
                return [
                    Variant(
                        requestBody: nil,
                        responses: only.responses,
                        sentBody: only.requestBody.flatMap { $0.bytes.isEmpty ? nil : $0 },
                        entries: only.entries,
                        lossy: only.lossy
                    )
                ]
            }
            return order.map { byBody[$0]! }
        }
    }
}
