import Foundation

/// The dashboard at `/__mockd/ui`: one HTML page, its script and its style, compiled into the binary (no CDN, no
/// build step) and served by the control API on the daemon's own port.
///
/// The three assets hold no data, so a browser loads them without the control token; everything the page shows
/// comes from the control API, which needs the token as always. The page takes the token from `#token=…` on first
/// load (a URL fragment never reaches the server, logs or `Referer`), or asks for it when a call answers 401, keeps
/// it in `sessionStorage` (this tab only, gone when it closes; never a cookie, so no other page can make the browser
/// send it) and sends it as `Authorization: Bearer`.
///
/// Every asset is sent with a Content-Security-Policy that allows only the daemon's own script and style (no inline
/// script, no `eval`), images from `data:`/`blob:` (body previews), connections to the daemon itself, and no
/// framing; recorded bodies and headers are user data, which the script only ever writes as text (`textContent`).
enum Dashboard {
    /// The policy sent with every dashboard asset.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The asset `request` names (`GET` or `HEAD` of `/__mockd/ui`, `/__mockd/ui/app.js`, `/__mockd/ui/app.css`),
    /// or `nil` for any other control request.
    static func asset(_ request: HTTPRequest) -> MockResponse? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        switch request.path {
        case "/__mockd/ui", "/__mockd/ui/": return answer(page, type: "text/html; charset=utf-8")
        case "/__mockd/ui/app.js": return answer(script, type: "text/javascript; charset=utf-8")
        case "/__mockd/ui/app.css": return answer(style, type: "text/css; charset=utf-8")
        default: return nil
        }
    }

    private static func answer(_ body: Data, type: String) -> MockResponse {
        MockResponse(
            status: 200,
            headers: HTTPHeaders([
                ("Content-Type", type), ("Cache-Control", "no-store"),
                ("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
                ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"),
                ("Cross-Origin-Resource-Policy", "same-origin"),
            ]),
            body: body
        )
    }

    private static let page = Data(DashboardAssets.page.utf8)
    private static let script = Data(DashboardAssets.script.utf8)
    private static let style = Data(DashboardAssets.style.utf8)
}
