/// HTTP status codes (RFC 9110 §15).
enum HTTPStatus {
    /// The reason phrase of the common codes (`OK`, `Not Found`), for HAR `statusText`; empty for the others.
    static func reasonPhrase(_ status: Int) -> String {
        let phrases = [
            200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 301: "Moved Permanently", 302: "Found",
            304: "Not Modified", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            409: "Conflict", 413: "Content Too Large", 422: "Unprocessable Content", 429: "Too Many Requests",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
        ]
        return phrases[status] ?? ""
    }
}
