public import MockdFormat

/// How a client fault (`Fault.isClientSide`: `offline`, `dnsFailure`, `tlsFailure`, `timeout`, `cancelled`) reaches the
/// app.
///
/// A server cannot make a phone go offline or a name fail to resolve, so the app's `MockdAppRedirect` does: it sends
/// `X-Mockd-Client-Faults: 1` with every request it redirects, and to such a request the daemon answers a client fault
/// with `redirectAnswer` (a 503 carrying `X-Mockd-Client-Fault: NAME`), which the library turns into the fault's
/// `URLError` for that request. Any other client (a real app without the library, curl, a browser) gets the fault's
/// `wireFallback` instead: a reset, or a hang for `timeout`. The journal's note says which of the two happened.
public enum ClientFaultDelivery {
    /// Whether `request` came through `MockdAppRedirect`, which raises client faults itself.
    public static func isRedirected(_ request: HTTPRequest) -> Bool {
        request.headers["x-mockd-client-faults"] != nil
    }

    /// The fault to carry out at the socket for `fault` answered to `request`: `nil` when `MockdAppRedirect` raises
    /// it (answer with `redirectAnswer`), else the wire fault (`fault` itself for a wire fault).
    public static func wireFault(_ fault: Fault, for request: HTTPRequest) -> Fault? {
        fault.isClientSide && isRedirected(request) ? nil : fault.wireFallback
    }

    /// The answer that makes `MockdAppRedirect` raise `fault`: 503, `X-Mockd-Client-Fault: NAME`, `Cache-Control:
    /// no-store`, and a JSON body naming the `URLError` (what a client that reads it by mistake sees).
    public static func redirectAnswer(_ fault: Fault) -> MockResponse {
        let error = fault.clientError ?? ("unknown", 0)
        var response = MockResponse.jsonError(
            status: 503,
            code: "client_fault",
            message: "MockdAppRedirect raises URLError.\(error.name) (\(error.code)) in the app for this request",
            more: ["fault": fault.rawValue, "urlError": error.name]
        )
        response.headers.add(name: Fault.clientFaultHeader, value: fault.rawValue)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    /// The journal's note for `fault` answered to `request`; `nil` for a wire fault.
    static func note(_ fault: Fault, request: HTTPRequest) -> String? {
        guard let error = fault.clientError else { return nil }
        if isRedirected(request) {
            return
                "client fault \(fault.rawValue): MockdAppRedirect raised URLError.\(error.name) (\(error.code)) in the app"
        }
        let seen =
            fault.wireFallback == .noResponse
            ? "no answer until it gives up" : "the connection reset (URLError.networkConnectionLost, curl 56)"
        return
            "client fault \(fault.rawValue): the request did not come through MockdAppRedirect, so the wire fallback \(fault.wireFallback.rawValue) was sent: the client sees \(seen)"
    }
}
