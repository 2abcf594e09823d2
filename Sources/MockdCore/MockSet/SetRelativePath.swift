import MockdFormat

/// The one rule for a file path relative to a folder it must stay in: a mock set's body files (`bodyFile`,
/// `request.body.file`), a HAR's side files (`content._file`), WireMock's `bodyFileName`. Serving, `validate`, `diff`,
/// `check`, `refresh`, merges and imports all ask it, so a set one command reads is never refused by another.
///
/// Refused: an empty path, an absolute one, a NUL byte, and a *component* `..` (`bodies/../x`). Two dots inside a
/// name are an ordinary name: `GET_compare_main...feature.json` (from a `/compare/main...feature` URL) is read. A
/// path that passes may still lead out through a symbolic link; readers resolve it against the folder too.
enum SetRelativePath {
    /// How a path looks, from one scan of its bytes.
    enum Shape: Equatable {
        /// Plain components only: the directory part (`""` at the top of the folder).
        case plain(directory: Substring)
        /// Allowed, with a `.` or empty component (`bodies/./x`, `bodies//x`): readers resolve it the long way.
        case unusual
        /// Refused: why, as the end of a sentence that starts with the quoted path.
        case refused(String)
    }

    /// The shape of `path`.
    static func shape(of path: String) -> Shape {
        // Scanned in place (through the view's indices it was 4% of a 100,000-stub start: each body file's path is
        // checked at load).
        let scanned =
            path.utf8.withContiguousStorageIfAvailable(scan) ?? Array(path.utf8).withUnsafeBufferPointer(scan)
        switch scanned {
        case .refused(let reason): return .refused(reason)
        case .unusual: return .unusual
        case .plain(let directoryEnd):
            // A `/` (ASCII) ends the directory: the offset is a character boundary.
            return .plain(directory: path[..<path.utf8.index(path.utf8.startIndex, offsetBy: directoryEnd)])
        }
    }

    /// `Shape` with the directory as its length in bytes.
    private enum Scanned {
        case plain(directoryEnd: Int)
        case unusual
        case refused(String)
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Scanned {
        if bytes.isEmpty { return .refused("is empty") }
        if bytes[0] == UInt8(ascii: "/") { return .refused("is an absolute path") }
        var directoryEnd = 0
        var componentLength = 0
        var dots = 0
        var unusual = false
        /// Ends the component before `index`: `false` when it is `..`.
        func endComponent() -> Bool {
            if componentLength == dots, dots == 2 { return false }
            if componentLength == 0 || (componentLength == 1 && dots == 1) { unusual = true }
            return true
        }
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if byte == 0 { return .refused("holds a NUL byte") }
            if byte == UInt8(ascii: "/") {
                guard endComponent() else { return .refused("has a '..' component") }
                directoryEnd = index
                componentLength = 0
                dots = 0
            } else {
                componentLength += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        guard endComponent() else { return .refused("has a '..' component") }
        return unusual ? .unusual : .plain(directoryEnd: directoryEnd)
    }

    /// Why `path` cannot name a file in its folder (`'bodies/../x' has a '..' component`), or `nil`.
    /// - Parameter what: What the files are, for the end of the message (`body files`, `side files`).
    static func problem(
        _ path: String,
        what: String = "body files",
        folder: String = "the mock set folder"
    )
        -> String?
    {
        guard case .refused(let reason) = shape(of: path) else { return nil }
        return "'\(path)' \(reason); \(what) must stay inside \(folder)"
    }
}

extension MockSetFile {
    /// Every body file the index names, once each in index order, with the JSON path that names it first
    /// (`stubs[3].responses[0].bodyFile`).
    var namedBodyFiles: [(path: String, jsonPath: String)] {
        var seen: Set<String> = []
        var named: [(path: String, jsonPath: String)] = []
        for (stubIndex, stub) in stubs.enumerated() {
            if let path = stub.request.body?.file, seen.insert(path).inserted {
                named.append((path, "stubs[\(stubIndex)].request.body.file"))
            }
            if let path = stub.request.recordedBody?.file, seen.insert(path).inserted {
                named.append((path, "stubs[\(stubIndex)].request.recordedBody.file"))
            }
            for (step, response) in stub.responses.enumerated() {
                if let path = response.bodyFile, seen.insert(path).inserted {
                    named.append((path, "stubs[\(stubIndex)].responses[\(step)].bodyFile"))
                }
            }
        }
        return named
    }
}
