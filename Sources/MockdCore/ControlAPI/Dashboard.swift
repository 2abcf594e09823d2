import Foundation

/// The dashboard at `/__mockd/ui`: one HTML page, its script and its style, served by the control API on the daemon's
/// own port. They are plain files in `ControlAPI/Dashboard/` (`index.html`, `app.js`, `app.css`: read, checked and
/// diffed as what they are) that SwiftPM compiles into the binary (`.embedInCode` in
/// Package.swift, generated as `PackageResources.<file_name>`, a `[UInt8]`): one binary, no resource bundle to find
/// at run time, no CDN, no build step.
///
/// The files hold no data, so a browser loads them without the control token; everything the page shows
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

    /// One file of `ControlAPI/Dashboard/` and how it is sent.
    struct File {
        /// Its name in the folder; served at `/__mockd/ui/<name>` (`index.html` at `/__mockd/ui`).
        let name: String
        /// The `Content-Type` it is sent with.
        let type: String
        let body: Data
    }

    /// Every file of the folder. A new file there is one row here (and SwiftPM embeds it without being told);
    /// DashboardTests fails when a file of the folder is not served byte for byte.
    static let files = [
        File(name: "index.html", type: "text/html; charset=utf-8", body: Data(PackageResources.index_html)),
        File(name: "app.js", type: "text/javascript; charset=utf-8", body: Data(PackageResources.app_js)),
        File(name: "app.css", type: "text/css; charset=utf-8", body: Data(PackageResources.app_css)),
    ]

    /// The file each path names: the page at `/__mockd/ui` and `/__mockd/ui/`, every other file at
    /// `/__mockd/ui/<name>`.
    private static let byPath: [Substring: File] = {
        var paths: [Substring: File] = [:]
        for file in files {
            if file.name == "index.html" {
                paths["/__mockd/ui"] = file
                paths["/__mockd/ui/"] = file
            } else {
                paths[Substring("/__mockd/ui/" + file.name)] = file
            }
        }
        return paths
    }()

    /// The file `request` names (`GET` or `HEAD` of `/__mockd/ui`, `/__mockd/ui/app.js`, …), or `nil` for any other
    /// control request.
    static func asset(_ request: HTTPRequest) -> MockResponse? {
        guard request.method == "GET" || request.method == "HEAD", let file = byPath[request.path] else { return nil }
        return MockResponse(
            status: 200,
            headers: HTTPHeaders([
                ("Content-Type", file.type), ("Cache-Control", "no-store"),
                ("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
                ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"),
                ("Cross-Origin-Resource-Policy", "same-origin"),
            ]),
            body: file.body
        )
    }
}
