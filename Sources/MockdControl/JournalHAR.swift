public import MockdFormat

/// `GET /__mockd/journal.har`: the session's journal as a HAR 1.2 document (what the app sent and received),
/// openable in browser dev tools and importable by `mockd import-har`.
public struct JournalHAR: Codable, Sendable, Equatable {
    public var log: Log

    public init(log: Log) {
        self.log = log
    }

    /// HAR 1.2 `log`.
    public struct Log: Codable, Sendable, Equatable {
        /// `1.2`.
        public var version: String
        public var creator: Creator
        /// Always empty: the journal has no pages.
        public var pages: [JSONValue]
        public var entries: [Entry]
        /// How many secret or personal values were replaced by placeholders (absent with `?keepSecrets=true`).
        public var comment: String?

        public init(version: String = "1.2", creator: Creator, entries: [Entry], comment: String?) {
            self.version = version
            self.creator = creator
            self.pages = []
            self.entries = entries
            self.comment = comment
        }
    }

    /// HAR 1.2 `creator`.
    public struct Creator: Codable, Sendable, Equatable {
        public var name: String
        public var version: String

        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    /// A header, cookie or query parameter.
    public struct NameValue: Codable, Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// HAR 1.2 `entry`, with mockd's `_mockdStub` (the stub that answered) and `_mockdProxied`.
    public struct Entry: Codable, Sendable, Equatable {
        public var startedDateTime: String
        /// In ms.
        public var time: Double
        public var request: Request
        public var response: Response
        public var cache: [String: JSONValue]
        public var timings: Timings
        @ExplicitNull public var mockdStub: String?
        public var mockdProxied: Bool

        public init(
            startedDateTime: String,
            time: Double,
            request: Request,
            response: Response,
            timings: Timings,
            mockdStub: String?,
            mockdProxied: Bool
        ) {
            self.startedDateTime = startedDateTime
            self.time = time
            self.request = request
            self.response = response
            self.cache = [:]
            self.timings = timings
            self.mockdStub = mockdStub
            self.mockdProxied = mockdProxied
        }

        private enum CodingKeys: String, CodingKey {
            case startedDateTime, time, request, response, cache, timings
            case mockdStub = "_mockdStub"
            case mockdProxied = "_mockdProxied"
        }
    }

    /// HAR 1.2 `request`.
    public struct Request: Codable, Sendable, Equatable {
        public var method: String
        public var url: String
        public var httpVersion: String
        public var headers: [NameValue]
        public var queryString: [NameValue]
        public var cookies: [NameValue]
        public var headersSize: Int
        public var bodySize: Int
        public var postData: PostData?

        public init(
            method: String,
            url: String,
            headers: [NameValue],
            queryString: [NameValue],
            bodySize: Int,
            postData: PostData?
        ) {
            self.method = method
            self.url = url
            self.httpVersion = "HTTP/1.1"
            self.headers = headers
            self.queryString = queryString
            self.cookies = []
            self.headersSize = -1
            self.bodySize = bodySize
            self.postData = postData
        }
    }

    /// HAR 1.2 `postData`; `_encoding: "base64"` (read back by `mockd import-har`) when the body is not UTF-8.
    public struct PostData: Codable, Sendable, Equatable {
        public var mimeType: String
        public var text: String
        public var encoding: String?

        public init(mimeType: String, text: String, encoding: String? = nil) {
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
        }

        private enum CodingKeys: String, CodingKey {
            case mimeType, text
            case encoding = "_encoding"
        }
    }

    /// HAR 1.2 `response`.
    public struct Response: Codable, Sendable, Equatable {
        public var status: Int
        public var statusText: String
        public var httpVersion: String
        public var headers: [NameValue]
        public var cookies: [NameValue]
        public var content: Content
        public var redirectURL: String
        public var headersSize: Int
        /// `-1` when a fault meant no body was sent.
        public var bodySize: Int

        public init(
            status: Int,
            statusText: String,
            headers: [NameValue],
            content: Content,
            redirectURL: String,
            bodySize: Int
        ) {
            self.status = status
            self.statusText = statusText
            self.httpVersion = "HTTP/1.1"
            self.headers = headers
            self.cookies = []
            self.content = content
            self.redirectURL = redirectURL
            self.headersSize = -1
            self.bodySize = bodySize
        }
    }

    /// HAR 1.2 `content`; `encoding: "base64"` when the body is not UTF-8.
    public struct Content: Codable, Sendable, Equatable {
        public var size: Int
        public var mimeType: String
        public var text: String?
        public var encoding: String?

        public init(size: Int, mimeType: String, text: String? = nil, encoding: String? = nil) {
            self.size = size
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
        }
    }

    /// HAR 1.2 `timings`, in ms.
    public struct Timings: Codable, Sendable, Equatable {
        public var send: Double
        public var wait: Double
        public var receive: Double

        public init(send: Double = 0, wait: Double, receive: Double = 0) {
            self.send = send
            self.wait = wait
            self.receive = receive
        }
    }
}
