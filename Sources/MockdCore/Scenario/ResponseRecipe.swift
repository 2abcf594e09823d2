import Foundation
import MockdFormat

/// One compiled response step of an override or of scenario `defaults`: edits applied on top of the
/// response the mock sets give (or an empty 200 when no stub matches).
struct ResponseRecipe: Sendable {
    var status: Int?
    /// Headers to set (`value`) or remove (`nil`), in order.
    var headerEdits: [(name: String, value: String?)] = []
    var addHeaders: [HTTPHeaders.Field] = []
    var body: Data?
    /// Content type to send with `body` when it replaces the stub's body.
    var bodyContentType: String?
    /// `body` is JSON written as a value in the scenario or stub (not text, not a file): a string in it that is exactly
    /// one placeholder renders as the placeholder's JSON value (`Template.parse(_:jsonValues:)`).
    var bodyIsJSONValue = false
    var bodyPatch: JSONValue?
    var latency: LatencyModel?
    var throttle: Int?
    var fault: Fault?
    /// `Retry-After` seconds of a `serverUnavailable` 503.
    var serverUnavailableRetryAfter: Int?
    /// A WebSocket endpoint's script.
    var webSocket: WebSocketScript?
    /// A Server-Sent Events stream.
    var eventStream: EventStream?
    /// Long-poll hold in ms.
    var holdMs: Double?
    /// `templated: false`: the response is sent without rendering placeholders.
    var literal = false
    /// `emit`: the pushes the answer causes; replaces those of the response it edits.
    var emissions: Emissions?

    /// Whether this step is a whole response rather than an edit of the stub's.
    var replacesResponse: Bool {
        body != nil || serverUnavailableRetryAfter != nil || webSocket != nil || eventStream != nil
    }

    /// Whether this step can answer without a matching stub.
    var standsAlone: Bool {
        body != nil || status != nil || serverUnavailableRetryAfter != nil || fault != nil || webSocket != nil
            || eventStream != nil
            || holdMs != nil
    }

    /// A step's fields, falling back to `defaults` for behaviour (latency, throttle, fault) it does not set.
    func withDefaults(_ defaults: ResponseRecipe?) -> ResponseRecipe {
        guard let defaults else { return self }
        var merged = self
        merged.latency = latency ?? defaults.latency
        merged.throttle = throttle ?? defaults.throttle
        merged.fault = fault ?? defaults.fault
        merged.holdMs = holdMs ?? defaults.holdMs
        merged.headerEdits = defaults.headerEdits + headerEdits
        merged.addHeaders = defaults.addHeaders + addHeaders
        merged.literal = literal || defaults.literal
        return merged
    }

    /// This step with the delivery of `below` (the recipe of the override whose answer it edits) where it sets none
    /// of its own: latency, throttle, fault and hold. Its edits were applied to the response already.
    func behaving(like below: ResponseRecipe) -> ResponseRecipe {
        var merged = self
        merged.latency = latency ?? below.latency
        merged.throttle = throttle ?? below.throttle
        merged.fault = fault ?? below.fault
        merged.holdMs = holdMs ?? below.holdMs
        return merged
    }

    /// The response this step gives over `base`.
    /// - Throws: `RecipeError` when `bodyPatch` meets a body that is not JSON.
    func apply(to base: MockResponse?) throws(RecipeError) -> MockResponse {
        var response = base ?? MockResponse(status: 200)
        if let retryAfter = serverUnavailableRetryAfter {
            response.status = 503
            response.headers.remove(name: "Retry-After")
            response.headers.add(name: "Retry-After", value: String(retryAfter))
            if body == nil {
                response.headers.remove(name: "Content-Type")
                response.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
                let unavailable = MockResponse.jsonError(
                    status: 503,
                    code: "service_unavailable",
                    message: "The service is temporarily unavailable; retry after \(retryAfter) s."
                )
                response.replaceBody(unavailable.body)
            }
        }
        if let webSocket {
            response.status = 101
            response.webSocket = webSocket
        }
        if let eventStream {
            response.eventStream = eventStream
            response.headers.remove(name: "Content-Type")
            response.headers.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
            response.headers.remove(name: "Cache-Control")
            response.headers.add(name: "Cache-Control", value: "no-cache")
        }
        if let status { response.status = status }
        if let body {
            response.replaceBody(body, jsonValues: bodyIsJSONValue)
            response.dateShift = nil  // a body of the step's own holds no recorded date
            if let bodyContentType {
                response.headers.remove(name: "Content-Type")
                response.headers.add(name: "Content-Type", value: bodyContentType)
            }
        }
        if let bodyPatch {
            // A body served from its file is read for the patch, on each answer (see `FileBody`).
            if let file = response.fileBody {
                guard let bytes = try? file.bytes() else {
                    throw RecipeError(message: "bodyPatch needs the body file '\(file.path)', which cannot be read")
                }
                response.replaceBody(bytes)
            }
            guard let json = try? JSONDecoder().decode(JSONValue.self, from: response.body) else {
                throw RecipeError(message: "bodyPatch needs a JSON body to patch, but the response body is not JSON")
            }
            let encoder = JSONEncoder()
            let pretty = response.body.contains(0x0A)
            encoder.outputFormatting =
                pretty
                ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
            var patched = (try? encoder.encode(MergePatch.apply(bodyPatch, to: json))) ?? response.body
            if pretty { patched.append(0x0A) }
            response.replaceBody(patched, jsonValues: true)
        }
        for edit in headerEdits {
            response.headers.remove(name: edit.name)
            if let value = edit.value { response.headers.add(name: edit.name, value: value) }
        }
        for field in addHeaders { response.headers.add(name: field.name, value: field.value) }
        if !headerEdits.isEmpty || !addHeaders.isEmpty { response.headersChanged() }
        if literal { response.disableTemplate() }
        if let emissions { response.emissions = emissions }
        return response
    }
}

/// Why a recipe could not be applied to a stub's response at serve time.
struct RecipeError: Error {
    let message: String
}
