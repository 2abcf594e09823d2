public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Sends the app's own requests to mockd in debug builds, without changing its networking code: the app calls
/// `MockdRedirect.installFromLaunchEnvironment()` once at launch, and a UI test that launches it with
/// `MOCKD_BASE_URL` and `MOCKD_SESSION` (`MockdClient.launchEnvironment`) gets every request of `URLSession.shared`
/// and of sessions made from `URLSessionConfiguration.default` / `.ephemeral`, and every `URLSessionWebSocketTask`,
/// rewritten to the daemon with `X-Mockd-Session`.
///
/// - Important: Compiled to nothing unless `MOCKD_REDIRECT` is defined, which this package does for debug builds
///   only: in a release build every method is a no-op that returns `false`, so a shipped app can never talk to a
///   mock by accident, whatever its environment says.
///
/// The environment (the test's `launchEnvironment`):
/// - `MOCKD_BASE_URL` (required): the daemon, `http://127.0.0.1:8080`;
/// - `MOCKD_SESSION`: the session sent in `X-Mockd-Session` (none: the default session);
/// - `MOCKD_HOST_ROUTING=path`: keep the host, for sets recorded from several hosts: `https://api.shop.test/v1/me`
///   becomes `BASE/__host/api.shop.test/v1/me` (without it: `BASE/v1/me`);
/// - `MOCKD_HOSTS=api.shop.test,cdn.shop.test`: redirect only these hosts (all but the daemon's own by default).
public enum MockdRedirect {
    /// Where requests go and what they carry, read from the launch environment.
    public struct Configuration: Sendable, Equatable {
        /// The daemon (`MOCKD_BASE_URL`).
        public var baseURL: URL
        /// Sent as `X-Mockd-Session` (`MOCKD_SESSION`); `nil` for the default session.
        public var session: String?
        /// Whether the original host is kept as `/__host/NAME/` (`MOCKD_HOST_ROUTING=path`).
        public var keepsHost: Bool
        /// Only these hosts are redirected (`MOCKD_HOSTS`, lowercased); `nil` for every host but the daemon's.
        public var hosts: Set<String>?

        public init(baseURL: URL, session: String? = nil, keepsHost: Bool = false, hosts: Set<String>? = nil) {
            self.baseURL = baseURL
            self.session = session
            self.keepsHost = keepsHost
            self.hosts = hosts
        }

        /// The configuration `environment` asks for; `nil` when it has no usable `MOCKD_BASE_URL`.
        public init?(environment: [String: String]) {
            guard let text = environment["MOCKD_BASE_URL"], let url = URL(string: text), url.host != nil,
                url.scheme == "http" || url.scheme == "https"
            else { return nil }
            let hosts = environment["MOCKD_HOSTS"].map {
                Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            }
            self.init(
                baseURL: url,
                session: environment["MOCKD_SESSION"].flatMap { $0.isEmpty ? nil : $0 },
                keepsHost: environment["MOCKD_HOST_ROUTING"] == "path",
                hosts: hosts
            )
        }

        /// `request` as mockd should receive it, or `nil` when it is not to be redirected (another host, the
        /// daemon itself, not HTTP).
        ///
        /// The scheme, host and port become the daemon's; the path is kept after the base URL's path (and
        /// `/__host/HOST` with `keepsHost`), the query, method, headers and body are kept, and `X-Mockd-Session` is
        /// set, with `X-Mockd-Client-Faults: 1` (the library raises client faults). `ws`/`wss` URLs become `ws` (or
        /// `wss` for an `https` daemon).
        public func redirected(_ request: URLRequest) -> URLRequest? {
            guard let url = request.url, let scheme = url.scheme?.lowercased(),
                ["http", "https", "ws", "wss"].contains(scheme), let host = url.host?.lowercased()
            else { return nil }
            if host == baseURL.host?.lowercased(), url.port == baseURL.port { return nil }
            if let hosts, !hosts.contains(host) { return nil }
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
                let base = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
            else { return nil }
            let secure = base.scheme == "https"
            components.scheme = scheme.hasPrefix("ws") ? (secure ? "wss" : "ws") : base.scheme
            components.host = base.host
            components.port = base.port
            let basePath =
                base.percentEncodedPath.hasSuffix("/")
                ? String(base.percentEncodedPath.dropLast()) : base.percentEncodedPath
            let hostPrefix = keepsHost ? "/__host/" + (url.port.map { "\(host):\($0)" } ?? host) : ""
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            components.percentEncodedPath = basePath + hostPrefix + path
            guard let target = components.url else { return nil }
            var rewritten = request
            rewritten.url = target
            if let session { rewritten.setValue(session, forHTTPHeaderField: "X-Mockd-Session") }
            // This library raises client faults (offline, DNS, TLS, timeout, cancelled) itself: mockd answers them
            // with `X-Mockd-Client-Fault` instead of breaking the connection (`ClientFault`).
            rewritten.setValue("1", forHTTPHeaderField: ClientFault.requestHeader)
            return rewritten
        }
    }

    /// Installs the redirect when the launch environment names a daemon (`MOCKD_BASE_URL`).
    /// - Returns: Whether requests now go to mockd (always `false` in a build without `MOCKD_REDIRECT`).
    @discardableResult
    public static func installFromLaunchEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        #if MOCKD_REDIRECT
        guard let configuration = Configuration(environment: environment) else { return false }
        install(configuration)
        return true
        #else
        return false
        #endif
    }

    /// Installs the redirect: `URLSession.shared` (a registered `URLProtocol`), and on Apple platforms sessions
    /// made from `URLSessionConfiguration.default`/`.ephemeral` and their WebSocket tasks. Calling it again
    /// replaces the configuration.
    public static func install(_ configuration: Configuration) {
        #if MOCKD_REDIRECT
        MockdURLProtocol.configuration.withLock { $0 = configuration }
        _ = URLProtocol.registerClass(MockdURLProtocol.self)
        #if canImport(ObjectiveC)
        SessionHooks.installOnce()
        #endif
        #endif
    }

    /// The configuration in use; `nil` before `install` (and always in a build without `MOCKD_REDIRECT`).
    public static var current: Configuration? {
        #if MOCKD_REDIRECT
        return MockdURLProtocol.configuration.withLock { $0 }
        #else
        return nil
        #endif
    }

    /// Adds the redirect to `configuration`, for a session the app builds itself (needed on Linux, where
    /// configurations cannot be hooked; on Apple platforms `install` already covers `.default` and `.ephemeral`).
    public static func apply(to configuration: URLSessionConfiguration) {
        #if MOCKD_REDIRECT
        let classes = configuration.protocolClasses ?? []
        if !classes.contains(where: { $0 == MockdURLProtocol.self }) {
            configuration.protocolClasses = [MockdURLProtocol.self] + classes
        }
        #endif
    }

    /// `request` rewritten for mockd when the redirect is installed and applies to it, else `request`: for
    /// WebSocket tasks on Linux (`URLSession.webSocketTask(with: MockdRedirect.request(for: request))`).
    public static func request(for request: URLRequest) -> URLRequest {
        #if MOCKD_REDIRECT
        return current?.redirected(request) ?? request
        #else
        return request
        #endif
    }
}
