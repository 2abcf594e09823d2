public import Foundation

/// Parses HAR files leniently into `HARArchive`.
public enum HARReader {
    /// Reads and parses the HAR file at `url`.
    ///
    /// - Parameter displayName: How to name the file in errors (defaults to its path).
    /// - Throws: `HARImportError` `.fileNotFound`, `.unreadable`, `.notJSON` (with a hint for JSONP wrappers
    ///   and truncated files) or `.notHAR` (naming the JSON path that is missing or has the wrong type).
    public static func read(contentsOf url: URL, displayName: String? = nil) throws -> HARArchive {
        let name = displayName ?? url.path
        let data: Data
        do {
            data = try UserFile.read(url, from: .argument)
        } catch .notFound {
            throw HARImportError(.fileNotFound, file: name, message: "file not found")
        } catch {
            throw HARImportError(.unreadable, file: name, message: "cannot read the file (\(error))")
        }
        return try parse(data, fileName: name)
    }

    /// Parses HAR bytes (a UTF-8 BOM is allowed; UTF-16/32 text is read as the UTF-8 it stands for, so that an
    /// error's line counts its characters: `JSONTextEncoding`).
    /// - Throws: `HARImportError` as for `read(contentsOf:displayName:)`.
    public static func parse(_ data: Data, fileName: String) throws -> HARArchive {
        var bytes: Data
        do {
            bytes = try JSONTextEncoding.utf8(data)
        } catch {
            throw HARImportError(.notJSON, file: fileName, message: "not a HAR file: \(error)")
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let root: Any
        do {
            // Parsed with raw U+FEFFs escaped (`RawByteOrderMarks`); a syntax error is found in the bytes as written,
            // so that its offsets are the file's.
            root =
                try (try? JSONObjectReader.jsonObject(with: RawByteOrderMarks.escaped(bytes)))
                ?? JSONSerialization.jsonObject(with: bytes, options: [])
        } catch {
            throw HARImportError(.notJSON, file: fileName, message: notJSONMessage(bytes, error: error))
        }
        let top = JSONNode(root, path: "")
        guard top.object != nil else { throw topLevelError(top, file: fileName) }
        let log = top["log"]
        guard log.object != nil else { throw logError(log, file: fileName) }
        let entriesNode = log["entries"]
        guard let entries = entriesNode.array else { throw entriesError(entriesNode, file: fileName) }
        let (version, creator) = logInfo(version: log["version"], creator: log["creator"])
        var archive = HARArchive(version: version, creator: creator, entries: [])
        archive.entries.reserveCapacity(entries.count)
        for (index, node) in entries.enumerated() {
            archive.entries.append(readEntry(node, index: index))
        }
        return archive
    }

    /// `log.version` and `log.creator` (`name version`) as reported; `nil` when absent or empty.
    static func logInfo(version: JSONNode, creator: JSONNode) -> (version: String?, creator: String?) {
        let name = [creator["name"].string, creator["version"].string]
            .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return (version.string ?? version.double.map { String($0) }, name.isEmpty ? nil : name)
    }

    /// The error for a top-level value that is not an object.
    static func topLevelError(_ top: JSONNode, file: String) -> HARImportError {
        HARImportError(
            .notHAR,
            file: file,
            jsonPath: "(top level)",
            message: "expected an object with a \"log\" field, found \(top.typeName)"
        )
    }

    /// The error for a `log` that is missing, `null` or not an object.
    static func logError(_ log: JSONNode, file: String) -> HARImportError {
        HARImportError(
            .notHAR,
            file: file,
            jsonPath: "log",
            message: log.isMissing ? "missing; this is not a HAR file" : "expected an object, found \(log.typeName)"
        )
    }

    /// The error for a `log.entries` that is missing, `null` or not an array.
    static func entriesError(_ entries: JSONNode, file: String) -> HARImportError {
        HARImportError(
            .notHAR,
            file: file,
            jsonPath: "log.entries",
            message: entries.isMissing
                ? "missing; a HAR log must list its entries" : "expected an array, found \(entries.typeName)"
        )
    }

    /// Reads one entry; fields that are missing or malformed become empty values that the importer
    /// reports and skips, so one bad entry never sinks a file.
    static func readEntry(_ node: JSONNode, index: Int) -> HAREntry {
        let request = node["request"]
        let postNode = request["postData"]
        var postData: HARPostData?
        if postNode.object != nil {
            let params = (postNode["params"].array ?? []).map { param -> (name: String, value: String) in
                (param["name"].string ?? "", stringValue(param["value"]))
            }
            postData = HARPostData(mimeType: postNode["mimeType"].string, text: postNode["text"].string, params: params)
            postData?.encoding = (postNode["_encoding"].string ?? postNode["encoding"].string)?.lowercased()
        }
        let harRequest = HARRequest(
            method: request["method"].string ?? "",
            url: request["url"].string ?? "",
            headers: headers(request["headers"]),
            postData: postData
        )
        var response: HARResponse?
        let responseNode = node["response"]
        if responseNode.object != nil {
            let content = responseNode["content"]
            response = HARResponse(
                status: responseNode["status"].int ?? 0,
                headers: headers(responseNode["headers"]),
                content: HARContent(
                    mimeType: content["mimeType"].string,
                    text: content["text"].string,
                    encoding: content["encoding"].string,
                    file: content["_file"].string,
                    size: content["size"].int
                ),
                redirectURL: responseNode["redirectURL"].string.flatMap { $0.isEmpty ? nil : $0 }
            )
        }
        let time = node["time"].double.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        var entry = HAREntry(
            index: index,
            request: harRequest,
            response: response,
            time: time,
            resourceType: node["_resourceType"].string,
            hasWebSocketMessages: node["_webSocketMessages"].array != nil
        )
        entry.webSocketMessages = (node["_webSocketMessages"].array ?? []).compactMap { message in
            guard let type = message["type"].string, let time = message["time"].double else { return nil }
            return HARWebSocketMessage(
                type: type,
                time: time,
                opcode: message["opcode"].int ?? 1,
                data: stringValue(message["data"])
            )
        }
        entry.startedDateTime = node["startedDateTime"].string.flatMap(parseDate)
        let failure =
            (responseNode["_failureText"].string ?? responseNode["_error"].string ?? node["_failureText"].string
            ?? node["_error"].string)?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        entry.failureText = failure?.isEmpty == false ? failure : nil
        entry.isPollyEntry = node["_id"].string != nil && node["_order"].value != nil
        entry.eventSourceMessages = (node["_eventSourceMessages"].array ?? []).compactMap { message in
            guard let time = message["time"].double ?? message["timestamp"].double else { return nil }
            let event = message["eventName"].string ?? message["event"].string
            let id = message["eventId"].string ?? message["id"].string
            return HAREventSourceMessage(time: time, event: event, id: id, data: stringValue(message["data"]))
        }
        return entry
    }

    /// An ISO 8601 date with or without fractional seconds; `nil` for `NaN-NaN…` and other garbage.
    static func parseDate(_ text: String) -> Date? {
        ISODateParser.shared.date(from: text)
    }

    /// `[{name, value}]` header lists; entries without a name are dropped.
    static func headers(_ node: JSONNode) -> HTTPHeaders {
        var result = HTTPHeaders()
        for item in node.array ?? [] {
            guard let name = item["name"].string, !name.isEmpty else { continue }
            result.add(name: name, value: stringValue(item["value"]))
        }
        return result
    }

    /// A value that should be a string; numbers and JSON objects (seen in `postData.params`) are written as JSON.
    static func stringValue(_ node: JSONNode) -> String {
        if let text = node.string { return text }
        guard let value = node.value, !(value is NSNull) else { return "" }
        if let number = value as? NSNumber { return number.stringValue }
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) {
            return String(decoding: data, as: UTF8.self)
        }
        return ""
    }

    /// A one-line explanation of why `bytes` is not JSON, with a hint for the common causes.
    static func notJSONMessage(_ bytes: Data, error: any Error) -> String {
        notJSONMessage(
            prefix: bytes.prefix(64),
            detail: JSONSyntaxLocation.parserDetail(error),
            line: { offset in offset <= bytes.count ? JSONSyntaxLocation.lineNumber(bytes.prefix(offset)) : nil },
            lastLine: { JSONSyntaxLocation.lastContentLine(bytes) }
        )
    }

    /// A one-line explanation of why a file is not JSON, with a hint for the common causes.
    ///
    /// - Parameters:
    ///   - prefix: The first 64 bytes of the file (after a BOM).
    ///   - detail: The JSON parser's message, with byte offsets counted from the start of the file (after a BOM).
    ///   - line: The 1-based line of a byte offset, `nil` when out of range.
    ///   - lastLine: The line of the file's last non-whitespace byte, named for a truncated file.
    static func notJSONMessage(prefix: Data, detail: String, line: (Int) -> Int?, lastLine: () -> Int?) -> String {
        let prefix = String(decoding: prefix.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if prefix.isEmpty { return "not a HAR file: the file is empty" }
        if let first = prefix.unicodeScalars.first, CharacterSet.letters.contains(first),
            let paren = prefix.firstIndex(of: "("),
            prefix[..<paren].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." })
        {
            return "not a HAR file: it is wrapped in JSONP `\(prefix[...paren])…)`; export plain HAR JSON instead"
        }
        let location = JSONSyntaxLocation.atLine(detail: detail, line: line, lastLine: lastLine)
        return "not a HAR file: invalid JSON\(location) (\(oneLine(detail)))"
    }
}

/// Two ISO 8601 formatters made once for the whole import, never one per entry (a formatter costs more to make than
/// an entry to parse; docs/BENCHMARKS.md#why-the-hot-path-looks-as-it-does).
final class ISODateParser: @unchecked Sendable {
    static let shared = ISODateParser()

    private let lock = NSLock()
    private let fractional = ISO8601DateFormatter()
    private let whole = ISO8601DateFormatter()

    private init() {
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        whole.formatOptions = [.withInternetDateTime]
    }

    /// An ISO 8601 date with or without fractional seconds; formatters are not thread-safe, hence the lock.
    func date(from text: String) -> Date? {
        if let date = Self.commonShape(text) { return date }
        return lock.withLock { fractional.date(from: text) ?? whole.date(from: text) }
    }

    /// `2026-01-31T23:59:59Z`, `…59.123Z`, `…59.123+02:00`: what browsers and proxies write, parsed without
    /// ICU (a formatter call cost more than parsing the entry's JSON). `nil` for any other shape or an
    /// out-of-range field, which the formatters then decide; the result is the formatters' to the bit.
    static func commonShape(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for index in start..<(start + count) {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int(digit)
                }
                return value
            }
            guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
                bytes[10] == UInt8(ascii: "T"),
                bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2)
            else { return nil }
            var index = 19
            var millis = 0
            if bytes[index] == UInt8(ascii: ".") {
                guard bytes.count >= index + 5, let fraction = number(index + 1, 3) else { return nil }
                millis = fraction
                index += 4
            }
            var offset = 0
            switch bytes[index] {
            case UInt8(ascii: "Z"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard bytes.count == index + 6, bytes[index + 3] == UInt8(ascii: ":"),
                    let hours = number(index + 1, 2), let minutes = number(index + 4, 2), hours < 24, minutes < 60
                else { return nil }
                offset = (hours * 60 + minutes) * 60 * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
                index += 6
            default:
                return nil
            }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            guard index == bytes.count, year >= 1000, (1...12).contains(month), day >= 1, day <= monthDays[month - 1],
                hour < 24, minute < 60, second < 60
            else { return nil }
            // Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
            let shifted = month <= 2 ? year - 1 : year
            let era = shifted / 400
            let yearOfEra = shifted - era * 400
            let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            let days = era * 146_097 + dayOfEra - 719_468
            let milliseconds = ((days * 86_400 + hour * 3_600 + minute * 60 + second - offset) * 1_000) + millis
            // CFDateFormatter's arithmetic: ICU milliseconds / 1000, minus the 1970 → 2001 interval.
            return Date(timeIntervalSinceReferenceDate: Double(milliseconds) / 1_000 - 978_307_200)
        }
    }
}
