#if MOCKD_REDIRECT && canImport(ObjectiveC)
import Foundation
import ObjectiveC

/// The Apple-platform hooks (Objective-C runtime): sessions the app makes from `URLSessionConfiguration.default` or
/// `.ephemeral` get `MockdURLProtocol` first in their `protocolClasses`, and `URLSession.webSocketTask(with:)` is
/// given the redirected request (a `URLProtocol` cannot carry a WebSocket). Installed once; not compiled on Linux,
/// where `MockdRedirect.apply(to:)` and `MockdRedirect.request(for:)` do the same explicitly.
enum SessionHooks {
    private static let installed = Locked(false)

    static func installOnce() {
        let first = installed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        swapClassGetter(
            #selector(getter: URLSessionConfiguration.default),
            with: #selector(getter: URLSessionConfiguration.mockd_default)
        )
        swapClassGetter(
            #selector(getter: URLSessionConfiguration.ephemeral),
            with: #selector(getter: URLSessionConfiguration.mockd_ephemeral)
        )
        swapInstanceMethod(
            URLSession.self,
            #selector(URLSession.webSocketTask(with:) as (URLSession) -> (URLRequest) -> URLSessionWebSocketTask),
            with: #selector(URLSession.mockd_webSocketTask(with:))
        )
        swapInstanceMethod(
            URLSession.self,
            #selector(URLSession.webSocketTask(with:) as (URLSession) -> (URL) -> URLSessionWebSocketTask),
            with: #selector(URLSession.mockd_webSocketTask(withURL:))
        )
    }

    private static func swapClassGetter(_ original: Selector, with replacement: Selector) {
        guard let metaclass = object_getClass(URLSessionConfiguration.self),
            let originalMethod = class_getInstanceMethod(metaclass, original),
            let replacementMethod = class_getInstanceMethod(metaclass, replacement)
        else { return }
        method_exchangeImplementations(originalMethod, replacementMethod)
    }

    private static func swapInstanceMethod(_ type: AnyClass, _ original: Selector, with replacement: Selector) {
        guard let originalMethod = class_getInstanceMethod(type, original),
            let replacementMethod = class_getInstanceMethod(type, replacement)
        else { return }
        method_exchangeImplementations(originalMethod, replacementMethod)
    }
}

extension URLSessionConfiguration {
    // After the exchange, calling `mockd_default` runs the original `default` getter.
    @objc class var mockd_default: URLSessionConfiguration {
        let configuration = self.mockd_default
        MockdRedirect.apply(to: configuration)
        return configuration
    }

    @objc class var mockd_ephemeral: URLSessionConfiguration {
        let configuration = self.mockd_ephemeral
        MockdRedirect.apply(to: configuration)
        return configuration
    }
}

extension URLSession {
    // After the exchange, calling `mockd_webSocketTask(with:)` runs the original method.
    @objc func mockd_webSocketTask(with request: URLRequest) -> URLSessionWebSocketTask {
        mockd_webSocketTask(with: MockdRedirect.request(for: request))
    }

    @objc func mockd_webSocketTask(withURL url: URL) -> URLSessionWebSocketTask {
        let redirected = MockdRedirect.request(for: URLRequest(url: url))
        // Unchanged: the original method; changed: the (hooked) request method, which leaves a mockd URL alone.
        return redirected.url == url ? mockd_webSocketTask(withURL: url) : webSocketTask(with: redirected)
    }
}
#endif
