public import Foundation

/// The failures a server cannot cause, raised in the app for one request: a scenario or a test names the fault
/// (`"fault": "offline"`), mockd answers the redirected request with `X-Mockd-Client-Fault: offline`, and
/// `MockdURLProtocol` fails that request with the matching `URLError`, as URLSession would on a device without a
/// connection. The daemon sends the header only to requests that carry `X-Mockd-Client-Faults: 1`, which this library
/// adds: any other client of mockd gets a reset (or no answer, for `timeout`) instead.
///
/// | fault        | URLError                        | code  |
/// |--------------|---------------------------------|-------|
/// | `offline`    | `.notConnectedToInternet`       | -1009 |
/// | `dnsFailure` | `.cannotFindHost`               | -1003 |
/// | `tlsFailure` | `.secureConnectionFailed`       | -1200 |
/// | `timeout`    | `.timedOut`                     | -1001 |
/// | `cancelled`  | `.cancelled`                    | -999  |
public enum ClientFault {
    /// The request header this library sends with every request it redirects.
    public static let requestHeader = "X-Mockd-Client-Faults"
    /// The response header naming the fault to raise; read and removed by this library.
    public static let responseHeader = "X-Mockd-Client-Fault"

    /// The error URLSession reports for `fault` (a name the daemon sent) on a request for `url`: the code, the failing
    /// URL, and the description Apple's URL loading system gives it. An unknown name (a newer daemon) is
    /// `URLError.unknown`.
    public static func error(_ fault: String, url: URL?) -> URLError {
        let (code, description): (URLError.Code, String)
        switch fault {
        case "offline":
            (code, description) = (.notConnectedToInternet, "The Internet connection appears to be offline.")
        case "dnsFailure":
            (code, description) = (.cannotFindHost, "A server with the specified hostname could not be found.")
        case "tlsFailure":
            (code, description) = (
                .secureConnectionFailed,
                "An SSL error has occurred and a secure connection to the server cannot be made."
            )
        case "timeout": (code, description) = (.timedOut, "The request timed out.")
        case "cancelled": (code, description) = (.cancelled, "cancelled")
        default: (code, description) = (.unknown, "mockd client fault '\(fault)'")
        }
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url {
            info[NSURLErrorFailingURLErrorKey] = url
            // NSURLErrorFailingURLStringErrorKey (deprecated by name, still filled by URLSession and read by
            // `URLError.failureURLString`).
            info["NSErrorFailingURLStringKey"] = url.absoluteString
        }
        return URLError(code, userInfo: info)
    }
}
