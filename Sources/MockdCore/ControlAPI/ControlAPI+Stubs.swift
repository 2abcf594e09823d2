import Foundation
import MockdControl
import MockdFormat

/// The session's runtime stubs (`/__mockd/stubs`) and its reset.
extension ControlAPI {
    func listStubs(_ call: Call, _: NoBody) -> RuntimeStubList {
        RuntimeStubList(
            session: call.session.id,
            stubs: call.session.runtimeStubs.map {
                RuntimeStub(id: $0.override.id, definition: $0.definition, group: $0.group)
            }
        )
    }

    func getStub(_ call: Call, _: NoBody) throws -> RuntimeStub {
        let id = call.parameter("id")
        guard let stub = call.session.runtimeStubs.first(where: { $0.override.id == id }) else {
            throw Failure(.unknownStub, "session '\(call.session.id)' has no runtime stub '\(id)'")
        }
        return RuntimeStub(id: stub.override.id, definition: stub.definition)
    }

    /// The body is checked by the scenario compiler (`compileStub`), which names each field it refuses.
    func addStub(_ call: Call) throws -> AddedStub {
        switch compileStub(call.request.body, file: "stub") {
        case .failure(let problem):
            throw Failure(.invalidStub, problem.message)
        case .success(let member):
            let id = call.session.addRuntimeStub(
                member.override,
                definition: member.definition,
                requestedID: member.requestedID
            )
            return AddedStub(id: id, session: call.session.id)
        }
    }

    /// Why a posted stub was refused: every problem, one per line, each starting with `file`.
    struct StubProblem: Error {
        let message: String
    }

    /// One runtime stub (`POST /__mockd/stubs`, an element of a group) decoded, checked and compiled; `file`
    /// (`stub`, `stubs[2]`) starts each line of the problems.
    func compileStub(_ data: Data, file: String) -> Result<Session.GroupMember, StubProblem> {
        // JSON is UTF-8 (RFC 8259 §8.1): said so, with the offset, before a decoder reports a misleading path.
        if let offset = ControlAPI.firstInvalidUTF8Offset(data) {
            return .failure(
                StubProblem(
                    message:
                        "\(file): the body is not valid UTF-8 (byte \(offset)); send the stub as JSON in UTF-8 (RFC 8259 §8.1)"
                )
            )
        }
        let definition: JSONValue
        let entry: ScenarioFile.OverrideEntry
        do {
            definition = try JSONDecoder().decode(JSONValue.self, from: data)
            entry = try JSONDecoder().decode(ScenarioFile.OverrideEntry.self, from: data)
        } catch let error as DecodingError {
            return .failure(StubProblem(message: ConfigError.decoding(error, file: file).description))
        } catch {
            return .failure(
                StubProblem(
                    message: "\(file == "stub" ? "the body" : file) must be a JSON stub in the scenario override format"
                )
            )
        }
        var problems = KnownFields.check(data, shape: KnownFields.overrideShape, file: file)
        // Compiled under a provisional id; the session picks the id and places the stub in one locked step, so
        // parallel adds never share an id or lose a stub.
        var named = entry
        named.id = entry.id ?? "runtime"
        let root = engine.catalog.root ?? MockdRoot(url: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        let override = RecipeCompiler(root: root).compileOverride(
            named,
            file: file,
            path: "",
            position: 0,
            problems: &problems
        )
        guard let override, problems.isEmpty else {
            let message = problems.map { $0.description.replacingOccurrences(of: "\(file): .", with: "\(file): ") }
                .joined(separator: "\n")
            return .failure(StubProblem(message: message))
        }
        return .success(Session.GroupMember(override: override, definition: definition, requestedID: entry.id))
    }

    /// The offset of the first byte that is not part of a valid UTF-8 sequence, or `nil` when `data` is UTF-8.
    static func firstInvalidUTF8Offset(_ data: Data) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = data.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    func removeStub(_ call: Call, _: NoBody) throws -> NoBody {
        let id = call.parameter("id")
        guard call.session.removeRuntimeStub(id: id) else {
            throw Failure(.unknownStub, "session '\(call.session.id)' has no runtime stub '\(id)'")
        }
        return NoBody()
    }

    func removeStubs(_ call: Call, _: NoBody) -> NoBody {
        call.session.removeAllRuntimeStubs()
        return NoBody()
    }

    func reset(_ call: Call, _: NoBody) -> ResetResult {
        if call.flag("all") {
            engine.sessions.defaultSession.reset()
            engine.sessions.removeAll()
            return ResetResult(reset: "all")
        }
        call.session.reset()
        return ResetResult(reset: call.session.id)
    }
}
