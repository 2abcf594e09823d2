import Foundation
import MockdFormat
import MockdPlatform

/// A stub's responses whose body files are read when the stub first answers, not when the set loads: a start with
/// 100,000 imported stubs (one body file each) then makes no system call per body file, and an idle daemon holds no
/// body it has not served.
///
/// What the loader built from the index (status, headers, fault, `miss`, recorded time, the stub id) is kept as a
/// placeholder response per step; the placeholders are completed here in the order the eager loader uses (body,
/// its `{{placeholders}}`, the step's `templated` mode, recorded origins' URLs), so a deferred stub answers with the
/// same bytes an eagerly loaded one would. The body file was not looked at during the load (only its path as
/// written, `BodyFileReader.mayDefer`): it is opened here, relative to the set folder as loaded
/// (`BodyFileReader.readOnFirstUse`); a file of 1 MiB or more is then served from disk, as at load.
///
/// The completed responses are published once (a compare-and-exchange of one address); two threads completing at
/// once both read the file and the first result is kept. A file that cannot be read (missing, unreadable, outside
/// the set folder, or gone since the start) answers 500 with the one-line error `mockd validate` gives for it
/// (`mocks/web/index.json: stubs[2].responses[0].bodyFile: body file 'bodies/c.json' not found`), and is tried again
/// on the next request; the daemon keeps answering every other stub.
final class DeferredResponses: Sendable {
    /// A response step's place in its index: the entry and the step, for error messages.
    struct StepLocation: Sendable {
        private let entryIndex: Int32
        private let stepIndex: Int32

        init(entry: Int, step: Int) {
            self.entryIndex = Int32(clamping: entry)
            self.stepIndex = Int32(clamping: step)
        }

        /// `stubs[3].responses[0]`.
        var stepPath: String { "stubs[\(entryIndex)].responses[\(stepIndex)]" }
    }

    /// A step's body file, read on first use.
    struct PendingBody: Sendable {
        /// The path inside the set folder, as the index gives it (`bodies/GET_users.json`).
        let relativePath: String
        let templated: TemplateMode
        /// Where the index names it: `stubs[3].responses[0].bodyFile` in an error.
        let location: StepLocation
    }

    /// What every deferred stub of one set shares.
    final class Context: Sendable {
        /// Reads a body file on first use: its path in the set folder, the step's `templated` mode and the JSON path
        /// naming it in an error; its bytes and placeholders, or a `FileBody` served from disk
        /// (`BodyFileReader.readOnFirstUse`).
        /// - Throws: `ConfigError` naming the index, the JSON path and the file.
        typealias Read =
            @Sendable (String, TemplateMode, String) throws -> (
                data: Data, template: Template?, file: FileBody?
            )

        let read: Read
        let origins: OriginRewrite?
        let indexName: String

        init(read: @escaping Read, origins: OriginRewrite?, indexName: String) {
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

    /// Whether the responses are completed and kept: every body file was read. `false` before the first use and
    /// while a body file cannot be read.
    var isCompleted: Bool { loadCompleted() != nil }

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
                let message =
                    (error as? ConfigError)?.description
                    ?? "\(context.indexName): \(body.location.stepPath).bodyFile: cannot read '\(body.relativePath)' (\(error))"
                var answer = MockResponse.jsonError(status: 500, code: "body_file_unavailable", message: message)
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
    /// - Throws: `ConfigError` naming the index, the step's `bodyFile` and the file, as `mockd validate` does.
    private func completing(_ placeholder: MockResponse, with body: PendingBody) throws -> MockResponse {
        let (data, template, fileBody) = try context.read(
            body.relativePath,
            body.templated,
            "\(body.location.stepPath).bodyFile"
        )
        var response = placeholder
        response.body = data
        let headersHavePlaceholders = placeholder.template?.hasHeaderPlaceholders ?? false
        response.template =
            template != nil || headersHavePlaceholders
            ? ResponseTemplate(body: template, hasHeaderPlaceholders: headersHavePlaceholders) : nil
        response.applyTemplateMode(body.templated)
        // A placeholder problem in the file is the load's error, in its words (`StubBuilder`), and the file is tried
        // again next time, as one that cannot be read.
        if let problem = response.templateProblems.first(where: { $0.part == "body" })?.problem {
            throw ConfigError(
                .invalidValue,
                file: context.indexName,
                jsonPath: "\(body.location.stepPath).bodyFile",
                message: problem.loadMessage(in: body.relativePath)
            )
        }
        if let fileBody { response.fileBody = fileBody }
        if let origins = context.origins { response.rewriteURLs(of: origins) }
        return response
    }
}
