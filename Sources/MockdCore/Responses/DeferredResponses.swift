import Foundation
import MockdFormat
import MockdPlatform

/// A stub's responses whose body files are read when the stub first answers, not when the set loads: a start with
/// 100,000 imported stubs (one small body file each) then opens no body file, and an idle daemon holds no body it
/// has not served.
///
/// What the loader built from the index (status, headers, fault, `miss`, recorded time, the stub id) is kept as a
/// placeholder response per step; the placeholders are completed here in the order the eager loader uses (body,
/// its `{{placeholders}}`, the step's `templated` mode, recorded origins' URLs), so a deferred stub answers with the
/// same bytes an eagerly loaded one would. The body file's existence, type and permissions were checked at load
/// (`BodyFileReader.isSmallReadableFile`), without reading it.
///
/// The completed responses are published once (a compare-and-exchange of one address); two threads completing at once both read the
/// file and the first result is kept. A file that cannot be read any more (deleted, its permissions changed since
/// the start) answers 500 naming the file and the stub, and is tried again on the next request; a reload
/// (SIGHUP, `POST /__mockd/reload`) reports it as a load error.
final class DeferredResponses: Sendable {
    /// A step's body file, read on first use.
    struct PendingBody: Sendable {
        /// The path inside the set folder, as the index gives it (`bodies/GET_users.json`).
        let relativePath: String
        let templated: TemplateMode
    }

    /// What every deferred stub of one set shares.
    final class Context: Sendable {
        /// Reads a body file and parses its placeholders (`BodyFileReader.readChecked` of the set's folder).
        let read: @Sendable (String) throws -> (data: Data, template: Template?)
        let origins: OriginRewrite?
        let indexName: String

        init(
            read: @escaping @Sendable (String) throws -> (data: Data, template: Template?),
            origins: OriginRewrite?,
            indexName: String
        ) {
            self.read = read
            self.origins = origins
            self.indexName = indexName
        }
    }

    /// The completed responses of a stub.
    final class Completed: Sendable {
        let first: MockResponse
        let later: [MockResponse]

        init(first: MockResponse, later: [MockResponse]) {
            self.first = first
            self.later = later
        }
    }

    let context: Context
    /// The first step's body file to read, or `nil` for a step built completely at load.
    let firstPending: PendingBody?
    /// The same for the later steps; empty (no storage) for the one-response stubs most sets are made of.
    let laterPending: [PendingBody?]
    /// The address of the completed responses, retained (an `Unmanaged<Completed>`), set once; 0 before. Not
    /// `AtomicLazyReference`: its unspecialised `load()` looked up generic metadata on every request, a sixth of a
    /// matched request's own instructions (and it needs macOS 15, where `Atomic` is MockdPlatform's below that).
    private let completed = Atomic<UInt>(0)

    /// - Parameter pending: One per step: the body file to read, or `nil` for a step that needed none.
    init(context: Context, pending: [PendingBody?]) {
        self.context = context
        self.firstPending = pending[0]
        self.laterPending = pending.count > 1 ? Array(pending.dropFirst()) : []
    }

    /// The responses, completed now if this is the first use.
    /// - Parameter placeholders: The stub's responses as loaded (every step, the first one first).
    @inline(__always)
    func responses(_ placeholders: @autoclosure () -> [MockResponse]) -> Completed {
        if let done = loadCompleted() { return done }
        return complete(placeholders())
    }

    private func complete(_ placeholders: [MockResponse]) -> Completed {
        var responses: [MockResponse] = []
        responses.reserveCapacity(placeholders.count)
        var failed = false
        for (step, placeholder) in placeholders.enumerated() {
            guard let body = step == 0 ? firstPending : laterPending[step - 1] else {
                responses.append(placeholder)
                continue
            }
            do {
                responses.append(try completing(placeholder, with: body))
            } catch {
                failed = true
                var answer = MockResponse.jsonError(
                    status: 500,
                    code: "body_file_unavailable",
                    message: "\(context.indexName): cannot read body file '\(body.relativePath)' of stub "
                        + "'\(placeholder.stubID ?? "")' (\(error)): it changed on disk since the set was loaded; "
                        + "reload the set (SIGHUP or POST /__mockd/reload)"
                )
                answer.stubID = placeholder.stubID
                responses.append(answer)
            }
        }
        let result = Completed(first: responses[0], later: Array(responses.dropFirst()))
        // A failed read is not kept: the next request tries the file again.
        return failed ? result : storeCompleted(result)
    }

    /// The completed responses once published (a body that could not be read is never published), else `nil`.
    var publishedCompleted: Completed? { loadCompleted() }

    @inline(__always) private func loadCompleted() -> Completed? {
        Self.completed(at: completed.load(ordering: .acquiring))
    }

    private func storeCompleted(_ result: Completed) -> Completed {
        let retained = UInt(bitPattern: Unmanaged.passRetained(result).toOpaque())
        let (stored, earlier) = completed.compareExchange(
            expected: 0,
            desired: retained,
            ordering: .acquiringAndReleasing
        )
        if stored { return result }
        // Another thread completed it first: every caller shares that one.
        Unmanaged<Completed>.fromOpaque(UnsafeRawPointer(bitPattern: retained)!).release()
        return Self.completed(at: earlier)!
    }

    @inline(__always) private static func completed(at address: UInt) -> Completed? {
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return nil }
        return Unmanaged<Completed>.fromOpaque(pointer).takeUnretainedValue()
    }

    deinit {
        if let pointer = UnsafeRawPointer(bitPattern: completed.load(ordering: .acquiring)) {
            Unmanaged<Completed>.fromOpaque(pointer).release()
        }
    }

    /// `placeholder` with the body of `body` and everything that depends on it, as `StubBuilder` does for a body
    /// read at load.
    private func completing(_ placeholder: MockResponse, with body: PendingBody) throws -> MockResponse {
        let (data, template) = try context.read(body.relativePath)
        var response = placeholder
        response.body = data
        let headersHavePlaceholders = placeholder.template?.hasHeaderPlaceholders ?? false
        response.template =
            template != nil || headersHavePlaceholders
            ? ResponseTemplate(body: template, hasHeaderPlaceholders: headersHavePlaceholders) : nil
        response.applyTemplateMode(body.templated)
        if let origins = context.origins { response.rewriteURLs(of: origins) }
        return response
    }
}
