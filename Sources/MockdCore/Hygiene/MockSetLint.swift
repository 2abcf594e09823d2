public import Foundation
import MockdPlatform

/// `mockd lint`: what in a mock set still looks like a secret or personal data.
///
/// Reads the index (header lines, queries, inline bodies) and every UTF-8 file in the set folder (JSON
/// bodies by JSON path, other text by line and column). Of binary files, the text images and documents carry as
/// metadata (`BinaryMetadata`: PNG text chunks, JPEG EXIF, XMP and comments, PDF Info strings and XMP, compressed or
/// not), by field. The same evidence as the importer's hygiene (`SecretPatterns`): credential names with real values,
/// value shapes anywhere; in metadata also confidentiality markers ("NDA", "Confidential", "Internal use only"…),
/// which in a document's own metadata say it was never meant to be shared.
public enum MockSetLint {
    /// One finding: `file: location: what`.
    public struct Finding: Sendable, Equatable, CustomStringConvertible {
        public let file: String
        /// A JSON path (`stubs[2].responses[0].headers[1]`, `$.user.email`) or `line L, column C`.
        public let location: String
        public let what: String

        public var description: String { "\(file): \(location): \(what)" }
    }

    /// Every finding in the set folder `folder`, files in name order; `display` names the folder in output.
    /// - Throws: `ConfigError` when the folder has no readable `index.json`.
    public static func run(folder: URL, display: String) throws -> [Finding] {
        let indexURL = folder.appendingPathComponent("index.json")
        let indexName = display + "/index.json"
        guard let data = FileManager.default.contents(atPath: indexURL.path) else {
            throw ConfigError(
                .fileNotFound,
                file: indexName,
                message: "not found; lint needs a mock set folder (mocks/<name>)"
            )
        }
        guard let index = try? JSONSerialization.jsonObject(with: data) else {
            throw ConfigError(.invalidJSON, file: indexName, message: "not valid JSON")
        }
        var findings: [Finding] = []
        scanIndex(index, file: indexName, into: &findings)
        // Every regular file of the folder, links not followed (a link inside the set leads to a file listed itself; one
        // that leads out is not the set's): one `readdir` pass per folder, where resolving each path was 15 `stat`
        // calls a file.
        let listing = (try? FileSystem.listing(of: folder.resolvingSymlinksInPath().path)) ?? FileSystem.FolderListing()
        // What cannot be scanned is a finding: "nothing found" must mean nothing is there.
        for name in listing.notUTF8 {
            findings.append(
                Finding(file: "\(display)/\(name)", location: "name", what: "not UTF-8, so not scanned; rename it")
            )
        }
        for name in listing.unreadableFolders {
            findings.append(
                Finding(file: "\(display)/\(name)", location: "folder", what: "cannot be opened, so not scanned")
            )
        }
        // The compact index repeats index.json's strings (scanned there) in a binary layout.
        let paths = listing.files.filter { $0 != "index.json" && !CompactIndexFile.isCacheFile($0) }
        for relative in paths {
            guard let bytes = FileManager.default.contents(atPath: folder.appendingPathComponent(relative).path) else {
                continue
            }
            let name = "\(display)/\(relative)"
            // Images and documents by their metadata's fields, whether or not their bytes happen to be UTF-8 (a PDF
            // written in ASCII is); other binary files are skipped.
            guard BinaryMetadata.format(of: bytes) == nil, let text = String(data: bytes, encoding: .utf8) else {
                for metadata in BinaryMetadata.texts(in: bytes) {
                    scanMetadata(metadata, file: name, into: &findings)
                }
                continue
            }
            if let json = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed]),
                bytes.first.map({ $0 == 0x7B || $0 == 0x5B }) == true
            {
                scanJSON(json, path: "$", key: nil, file: name, into: &findings)
            } else {
                scanText(text, file: name, into: &findings)
            }
        }
        return findings
    }

    private static func scanIndex(_ index: Any, file: String, into findings: inout [Finding]) {
        guard let stubs = (index as? [String: Any])?["stubs"] as? [Any] else { return }
        for (stubIndex, stub) in stubs.enumerated() {
            guard let stub = stub as? [String: Any] else { continue }
            let path = "stubs[\(stubIndex)]"
            if let request = stub["request"] as? [String: Any] {
                if let query = request["query"] as? String {
                    scanQuery(query, location: "\(path).request.query", file: file, into: &findings)
                }
                for (position, line) in ((request["headers"] as? [Any]) ?? []).enumerated() {
                    if let line = line as? String {
                        scanHeaderLine(
                            line,
                            location: "\(path).request.headers[\(position)]",
                            file: file,
                            into: &findings
                        )
                    }
                }
                if let body = request["body"] as? [String: Any] {
                    if let text = body["text"] as? String {
                        scanValue(text, key: nil, location: "\(path).request.body.text", file: file, into: &findings)
                    }
                    if let json = body["json"] {
                        scanJSON(json, path: "\(path).request.body.json", key: nil, file: file, into: &findings)
                    }
                }
            }
            for (stepIndex, step) in ((stub["responses"] as? [Any]) ?? []).enumerated() {
                guard let step = step as? [String: Any] else { continue }
                let stepPath = "\(path).responses[\(stepIndex)]"
                for (position, line) in ((step["headers"] as? [Any]) ?? []).enumerated() {
                    if let line = line as? String {
                        scanHeaderLine(line, location: "\(stepPath).headers[\(position)]", file: file, into: &findings)
                    }
                }
                if let text = step["body"] as? String {
                    scanValue(text, key: nil, location: "\(stepPath).body", file: file, into: &findings)
                }
                if let json = step["json"] {
                    scanJSON(json, path: "\(stepPath).json", key: nil, file: file, into: &findings)
                }
            }
        }
    }

    private static func scanHeaderLine(_ line: String, location: String, file: String, into findings: inout [Finding]) {
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        let lower = name.lowercased()
        if lower == "set-cookie" || lower == "cookie" {
            for pair in value.split(separator: ";").prefix(lower == "set-cookie" ? 1 : .max) {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let cookie = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                if !cookie.isEmpty, cookie != "deleted", !SecretPatterns.isPlaceholderOrFake(cookie) {
                    findings.append(Finding(file: file, location: location, what: "\(name) value"))
                    return
                }
            }
            return
        }
        if SecretPatterns.placeholder(forHeader: lower) != nil {
            let credential = lower.hasSuffix("authorization") ? String(value.split(separator: " ").last ?? "") : value
            if !credential.isEmpty, !SecretPatterns.isPlaceholderOrFake(credential) {
                findings.append(Finding(file: file, location: location, what: "\(name) value"))
            }
            return
        }
        for finding in SecretPatterns.findings(in: value) {
            findings.append(Finding(file: file, location: location, what: "\(finding.what) in \(name)"))
        }
    }

    private static func scanQuery(_ query: String, location: String, file: String, into findings: inout [Finding]) {
        for piece in query.split(separator: "&") {
            let parts = piece.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = String(decoding: URLEncoding.decode(parts[0].utf8, plusIsSpace: true), as: UTF8.self)
            let value = String(decoding: URLEncoding.decode(parts[1].utf8, plusIsSpace: true), as: UTF8.self)
            scanValue(
                value,
                key: name,
                location: "\(location) (\(name))",
                file: file,
                into: &findings,
                queryParameter: true
            )
        }
    }

    /// One string value under an optional field or parameter name.
    private static func scanValue(
        _ value: String,
        key: String?,
        location: String,
        file: String,
        into findings: inout [Finding],
        queryParameter: Bool = false
    ) {
        guard !value.isEmpty, !SecretPatterns.isPlaceholderOrFake(value) else { return }
        let named = key.flatMap {
            queryParameter
                ? SecretPatterns.placeholder(forQueryParameter: $0) : SecretPatterns.placeholder(forField: $0)
        }
        if let named, named != "email", named != "phone" {
            findings.append(Finding(file: file, location: location, what: "value of \(key!) (\(named))"))
            return
        }
        if SecretPatterns.isPhoneNumber(value, fieldName: key) {
            findings.append(Finding(file: file, location: location, what: "phone number"))
            return
        }
        for finding in SecretPatterns.findings(in: value) {
            findings.append(Finding(file: file, location: location, what: finding.what))
        }
    }

    private static func scanJSON(_ value: Any, path: String, key: String?, file: String, into findings: inout [Finding])
    {
        if let object = value as? [String: Any] {
            for name in object.keys.sorted() {
                scanJSON(object[name]!, path: JSONPath.member(path, name), key: name, file: file, into: &findings)
            }
        } else if let array = value as? [Any] {
            for (position, element) in array.enumerated() {
                scanJSON(element, path: "\(path)[\(position)]", key: key, file: file, into: &findings)
            }
        } else if let string = value as? String {
            scanValue(string, key: key, location: path, file: file, into: &findings)
        }
    }

    /// One piece of a binary file's metadata: its secrets and personal data as any value under its field's name,
    /// and a confidentiality marker.
    private static func scanMetadata(_ metadata: BinaryMetadata.Text, file: String, into findings: inout [Finding]) {
        let before = findings.count
        scanValue(metadata.text, key: metadata.field, location: metadata.location, file: file, into: &findings)
        if let marker = confidentialityMarker(in: metadata.text) {
            findings.append(
                Finding(file: file, location: metadata.location, what: "confidentiality marker '\(marker)'")
            )
        }
        // Several findings of one kind in one field are one line.
        var seen = Set<String>()
        let added = findings[before...].filter { seen.insert($0.description).inserted }
        findings.removeSubrange(before...)
        findings += added
    }

    /// The words a document's metadata uses to say it must not be shared: `NDA` (as a word, in capitals), and in any
    /// case `confidential`, `internal use only`, `internal only`, `do not distribute`, `do not share`, `proprietary`,
    /// `under embargo`, `not for distribution`.
    static func confidentialityMarker(in text: String) -> String? {
        if text.range(of: #"(?<![A-Za-z])NDA(?![A-Za-z])"#, options: .regularExpression) != nil { return "NDA" }
        let phrases = [
            "confidential", "internal use only", "internal only", "do not distribute", "do not share", "proprietary",
            "under embargo", "not for distribution",
        ]
        for phrase in phrases {
            if let range = text.range(of: phrase, options: .caseInsensitive) { return String(text[range]) }
        }
        return nil
    }

    private static func scanText(_ text: String, file: String, into findings: inout [Finding]) {
        let nsText = text as NSString
        for finding in SecretPatterns.findings(in: text) {
            let before = nsText.substring(to: finding.range.location)
            let line = before.reduce(1) { $0 + ($1 == "\n" ? 1 : 0) }
            let column =
                before.count
                - (before.lastIndex(of: "\n").map { before.distance(from: before.startIndex, to: $0) + 1 } ?? 0) + 1
            findings.append(Finding(file: file, location: "line \(line), column \(column)", what: finding.what))
        }
    }
}

/// JSON paths as mockd prints them: `$.a.b[0]`, with `["odd key"]` for names that are not identifiers.
enum JSONPath {
    static func member(_ path: String, _ name: String) -> String {
        let plain =
            !name.isEmpty
            && name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "$" }
        if plain { return "\(path).\(name)" }
        let quoted = String(
            decoding: (try? JSONSerialization.data(withJSONObject: name, options: [.fragmentsAllowed])) ?? Data(),
            as: UTF8.self
        )
        return "\(path)[\(quoted)]"
    }
}
