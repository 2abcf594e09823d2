import Foundation

/// Where a body holds a URL that is an identifier, compared as a constant, rather than a link a client fetches:
/// such URLs keep the recorded origin when the set's other URLs are rewritten to the mock (`OriginRewrite`).
///
/// Identifiers:
/// - JSON: the values of `$schema`, `$id`, `@id`, `@type`, `@vocab` and `@base`; every string inside `@context`
///   (JSON-LD, whose terms map to IRIs); an RFC 9457 problem's `type` and `instance` (in an object that also has
///   `title`, `status` or `detail`, or anywhere in an `application/problem+json` body); a draft-04 schema's `id`
///   (beside `$schema`). Also JSON-LD blocks of an HTML page (`<script type="application/ld+json">`).
/// - XML and HTML: namespace names (`xmlns`, `xmlns:p`, `targetNamespace`, the namespace halves of
///   `xsi:schemaLocation`), microdata `itemtype`, an Atom entry's or feed's `<id>`, an RSS `<guid
///   isPermaLink="false">`.
/// Everything else (hrefs, `src`, `Location`, JSON `url`/`href`/`next` values, `$ref`) is a link and is rewritten.
enum IdentifierURLs {
    /// Byte offsets, from `body`'s start, of the first byte of each identifier value (`h` of `https://…`).
    static func offsets(in body: Data, mimeType: String?) -> Set<Int> {
        let bytes = [UInt8](body)
        guard let first = bytes.firstIndex(where: { !JSONSyntaxLocation.isJSONWhitespace($0) }) else { return [] }
        // `application/problem+json`, parameters and case aside.
        let problemBody =
            mimeType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            == "application/problem+json"
        var found: Set<Int> = []
        if bytes[first] == UInt8(ascii: "{") || bytes[first] == UInt8(ascii: "[") {
            var scan = JSONScan(bytes: bytes[...], problemBody: problemBody)
            scan.position = first
            scan.value(depth: 0, key: nil, inContext: false)
            found.formUnion(scan.found)
        } else if bytes[first] == UInt8(ascii: "<") {
            found.formUnion(markupIdentifiers(bytes))
        }
        return found
    }

    // MARK: JSON

    private static let identifierKeys: Set<String> = ["$schema", "$id", "@id", "@type", "@vocab", "@base"]
    private static let problemMembers: Set<String> = ["title", "status", "detail"]

    /// A JSON walk that records identifier string values; malformed input ends it with what was found so far.
    private struct JSONScan {
        let bytes: ArraySlice<UInt8>
        let problemBody: Bool
        var position: Int
        var found: [Int] = []
        var failed = false

        init(bytes: ArraySlice<UInt8>, problemBody: Bool) {
            self.bytes = bytes
            self.problemBody = problemBody
            position = bytes.startIndex
        }

        private mutating func skipWhitespace() {
            while position < bytes.endIndex, JSONSyntaxLocation.isJSONWhitespace(bytes[position]) { position += 1 }
        }

        /// Reads a value; returns the offset of a string value's first byte (after the quote).
        @discardableResult
        mutating func value(depth: Int, key: String?, inContext: Bool) -> Int? {
            skipWhitespace()
            guard !failed, position < bytes.endIndex, depth < 256 else {
                failed = true
                return nil
            }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                object(depth: depth, inContext: inContext)
                return nil
            case UInt8(ascii: "["):
                position += 1
                skipWhitespace()
                if position < bytes.endIndex, bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return nil
                }
                while !failed {
                    if let start = value(depth: depth + 1, key: key, inContext: inContext),
                        inContext || key.map(IdentifierURLs.identifierKeys.contains) == true
                    {
                        found.append(start)
                    }
                    skipWhitespace()
                    guard position < bytes.endIndex else { break }
                    if bytes[position] == UInt8(ascii: ",") {
                        position += 1
                        continue
                    }
                    if bytes[position] == UInt8(ascii: "]") { position += 1 } else { failed = true }
                    break
                }
                return nil
            case UInt8(ascii: "\""):
                let start = position + 1
                return skipString() ? start : nil
            default:
                // A number, true, false or null.
                while position < bytes.endIndex, !",]} \t\r\n".utf8.contains(bytes[position]) { position += 1 }
                return nil
            }
        }

        private mutating func object(depth: Int, inContext: Bool) {
            position += 1
            var problemCandidates: [Int] = []
            var idCandidates: [Int] = []
            var isProblem = problemBody && depth == 0
            var hasSchema = false
            skipWhitespace()
            if position < bytes.endIndex, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return
            }
            while !failed {
                skipWhitespace()
                guard position < bytes.endIndex, bytes[position] == UInt8(ascii: "\"") else {
                    failed = true
                    return
                }
                let keyStart = position + 1
                guard skipString() else { return }
                let key = String(decoding: bytes[keyStart..<(position - 1)], as: UTF8.self)
                skipWhitespace()
                guard position < bytes.endIndex, bytes[position] == UInt8(ascii: ":") else {
                    failed = true
                    return
                }
                position += 1
                let contextHere = inContext || key == "@context"
                let start = value(depth: depth + 1, key: key, inContext: contextHere)
                if IdentifierURLs.problemMembers.contains(key) { isProblem = true }
                if key == "$schema" { hasSchema = true }
                if let start {
                    if contextHere || IdentifierURLs.identifierKeys.contains(key) {
                        found.append(start)
                    } else if key == "type" || key == "instance" {
                        problemCandidates.append(start)
                    } else if key == "id" {
                        idCandidates.append(start)
                    }
                }
                skipWhitespace()
                guard position < bytes.endIndex else { break }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                if bytes[position] == UInt8(ascii: "}") { position += 1 } else { failed = true }
                break
            }
            if isProblem { found += problemCandidates }
            if hasSchema { found += idCandidates }
        }

        /// Skips a string whose opening quote is at `position`; `false` (and `failed`) when it never closes.
        private mutating func skipString() -> Bool {
            position += 1
            while position < bytes.endIndex {
                switch bytes[position] {
                case UInt8(ascii: "\\"): position += 2
                case UInt8(ascii: "\""):
                    position += 1
                    return true
                default: position += 1
                }
            }
            failed = true
            return false
        }
    }

    // MARK: XML and HTML

    /// Attributes whose whole value is an identifier.
    private static let identifierAttributes = ["xmlns", "targetNamespace", "itemtype"]

    private static func markupIdentifiers(_ bytes: [UInt8]) -> [Int] {
        var found: [Int] = []
        let data = Data(bytes)
        for name in identifierAttributes {
            var offset = 0
            while let hit = ByteSearch.firstOffset(of: Array(name.utf8), in: data, from: offset) {
                offset = hit + name.utf8.count
                var cursor = offset
                // `xmlns:prefix`
                if name == "xmlns", cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") {
                    cursor += 1
                    while cursor < bytes.count, isNameByte(bytes[cursor]) { cursor += 1 }
                }
                if let start = attributeValueStart(bytes, after: cursor), isAttributeName(bytes, hit) {
                    found.append(start)
                }
            }
        }
        var offset = 0
        while let hit = ByteSearch.firstOffset(of: Array("schemaLocation".utf8), in: data, from: offset) {
            offset = hit + 14
            guard isAttributeName(bytes, hit), let start = attributeValueStart(bytes, after: offset) else { continue }
            // `namespace location namespace location…`: the namespaces are identifiers, the locations are fetched.
            let quote = bytes[start - 1]
            var cursor = start
            var token = 0
            while cursor < bytes.count, bytes[cursor] != quote {
                while cursor < bytes.count, bytes[cursor] != quote, isSpace(bytes[cursor]) { cursor += 1 }
                guard cursor < bytes.count, bytes[cursor] != quote else { break }
                if token % 2 == 0 { found.append(cursor) }
                token += 1
                while cursor < bytes.count, bytes[cursor] != quote, !isSpace(bytes[cursor]) { cursor += 1 }
            }
        }
        if ByteSearch.contains(Array("http://www.w3.org/2005/Atom".utf8), in: data) {
            found += elementTexts(named: "id", in: bytes, data: data)
        }
        found += elementTexts(named: "guid", in: bytes, data: data) { attributes in
            attributes.replacingOccurrences(of: " ", with: "").lowercased().contains("ispermalink=\"false\"")
                || attributes.replacingOccurrences(of: " ", with: "").lowercased().contains("ispermalink='false'")
        }
        // JSON-LD blocks of an HTML page.
        offset = 0
        let jsonLD = Array("application/ld+json".utf8)
        while let hit = ByteSearch.firstOffset(of: jsonLD, in: data, from: offset) {
            offset = hit + jsonLD.count
            guard let close = bytes[offset...].firstIndex(of: UInt8(ascii: ">")),
                let end = ByteSearch.firstOffset(of: Array("</".utf8), in: data, from: close + 1)
            else { continue }
            var scan = JSONScan(bytes: bytes[(close + 1)..<end], problemBody: false)
            while scan.position < end, JSONSyntaxLocation.isJSONWhitespace(bytes[scan.position]) { scan.position += 1 }
            scan.value(depth: 0, key: nil, inContext: false)
            found += scan.found
            offset = end
        }
        return found
    }

    /// The offset of the first byte of the text of each `<name …>` element (after leading whitespace) whose
    /// attributes `accepts`.
    private static func elementTexts(
        named name: String,
        in bytes: [UInt8],
        data: Data,
        accepts: (String) -> Bool = { _ in true }
    ) -> [Int] {
        var found: [Int] = []
        let open = Array("<\(name)".utf8)
        var offset = 0
        while let hit = ByteSearch.firstOffset(of: open, in: data, from: offset) {
            offset = hit + open.count
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ">") || isSpace(bytes[offset]),
                let close = bytes[offset...].firstIndex(of: UInt8(ascii: ">"))
            else { continue }
            guard accepts(String(decoding: bytes[offset..<close], as: UTF8.self)) else { continue }
            var start = close + 1
            while start < bytes.count, isSpace(bytes[start]) { start += 1 }
            found.append(start)
        }
        return found
    }

    /// After an attribute name ending before `cursor`: `= "` or `='` (spaces allowed), the offset after the quote.
    private static func attributeValueStart(_ bytes: [UInt8], after cursor: Int) -> Int? {
        var cursor = cursor
        while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
        guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") else { return nil }
        cursor += 1
        while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
        guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") else {
            return nil
        }
        return cursor + 1
    }

    /// Whether the name at `offset` starts an attribute name (after a space or a `:` prefix), not the end of one.
    private static func isAttributeName(_ bytes: [UInt8], _ offset: Int) -> Bool {
        offset > 0 && (isSpace(bytes[offset - 1]) || bytes[offset - 1] == UInt8(ascii: ":"))
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        URLEncoding.isUnreserved(byte)
    }
}
