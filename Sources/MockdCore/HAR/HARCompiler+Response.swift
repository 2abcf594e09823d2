import Foundation
import MockdFormat

/// `HARCompiler.add`'s answer side: the recorded answer as a stub step stores it (body, headers, status) and what
/// the report says about it.
extension HARCompiler {
    /// The answer's body as recorded (decoded, or read from a side file); what reading it did is noted for the report.
    mutating func decodedBody(of response: HARResponse, entry: HAREntry) -> Data {
        let decoded = RecordedBody(
            response.content,
            headers: response.headers,
            harDirectory: harDirectory,
            hexBinary: entry.isPollyEntry
        )
        for note in decoded.notes {
            if bodyNotes[note] == nil { bodyNoteOrder.append(note) }
            bodyNotes[note, default: []].append(entry.index)
        }
        return decoded.bytes
    }

    /// The answer a stub step stores: headers as the server sent them (unstable and hop-by-hop ones left out), the
    /// body, secrets redacted in both unless `--keep-secrets`, a whole 206 as its 200, and what serving it needs to
    /// know (a 304's validators, an event stream, literal `{{…}}`, a missing body's miss, recorded dates).
    mutating func recordedResponse(
        _ response: HARResponse,
        body decodedBytes: Data,
        entry: HAREntry,
        url: RecordedURL
    ) -> RecordedResponse {
        let method = entry.request.method
        var body = decodedBytes
        let mimeType = response.content.mimeType ?? response.headers["content-type"]
        let bodyNotRecorded = missingBody(of: response, body: body, entry: entry)
        let bodyBraces = ByteSearch.contains([0x7B, 0x7B], in: body)
        let headerBraces = response.headers.contains { $0.value.containsASCII("{{") }
        let redact = redacts(response, body: body, hasBraces: bodyBraces || headerBraces, entry: entry)
        var (headers, redactedHeaders) = storedHeaders(of: response, method: method, redact: redact, entry: entry)
        if let location = locationFromRedirectURL(of: response, entry: entry) { headers.append(location) }
        var redactedBody = false
        // The JSON `body` parsed as for redaction, read again for its dates (parsing it was most of both).
        var parsedBody: Any?
        if redact,
            let clean = redactor.redactResponseBody(
                body,
                mimeType: mimeType,
                entry: entry.index,
                path: url.rawPath,
                parsedJSON: &parsedBody
            )
        {
            body = clean
            redactedBody = true
            parsedBody = nil
        }
        let (status, partial) = wholeOrPartial(response, body: body, headers: &headers, entry: entry)
        var recorded = RecordedResponse(
            status: status,
            headers: sharedHeaderLines.shared(ByteKeys(headers)).values,
            body: body,
            mimeType: mimeType,
            time: entry.time
        )
        recorded.partial = partial
        if status == 304 { recorded.validators = HARCompiler.validators(of: entry.request) }
        if EventStreamRecorder.isEventStream(mimeType), method != "HEAD" {
            recorded.eventStream = EventStreamRecorder.stream(entry, body: body, scale: options.webSocketTimeScale)
        }
        // Recorded `{{…}}` is literal; placeholders written by redaction still render (their fixed fake values).
        if bodyBraces || headerBraces {
            recorded.templated = redactedBody || redactedHeaders ? .redactedOnly : .off
        }
        recorded.miss = bodyNotRecorded
        let datedBody = recorded.eventStream == nil && method != "HEAD"
        recorded.dates = recordedDates(
            entry,
            body: datedBody ? body : Data(),
            parsedBody: datedBody ? parsedBody : nil,
            headers: headers
        )
        return recorded
    }

    /// The miss of an answer the HAR says had a body but holds none of (noted for the report), unless
    /// `--missing-bodies empty` serves it empty; `nil` when the body is there or none is read.
    mutating func missingBody(of response: HARResponse, body: Data, entry: HAREntry) -> String? {
        let recordedLength =
            (response.content.size ?? 0) > 0
            ? response.content.size! : Int(response.headers["content-length"] ?? "") ?? 0
        guard body.isEmpty, recordedLength > 0, response.content.file == nil,
            response.content.text?.isEmpty != false, !HARCompiler.isBodiless(response, method: entry.request.method)
        else { return nil }
        missingBodies.append(entry.index)
        guard options.missingBodies == .miss else { return nil }
        return
            "body not recorded: HAR entry \(entry.number) says \(recordedLength) bytes but holds no text (re-record, or import with --missing-bodies empty to serve it empty)"
    }

    /// Whether to redact the answer: unless `--keep-secrets`, and unless it already holds placeholder-like `{{…}}`
    /// text (a client-side template's `{{email}}` would be indistinguishable from a redaction; the report says so).
    mutating func redacts(_ response: HARResponse, body: Data, hasBraces: Bool, entry: HAREntry) -> Bool {
        guard !options.keepSecrets else { return false }
        guard hasBraces,
            Template.parse(body)?.usesFakeValues == true
                || response.headers.contains(where: { Template.parse(Data($0.value.utf8))?.usesFakeValues == true })
        else { return true }
        report.warnings.append(
            "entry \(entry.number): the response already contains placeholder-like {{…}} text; not redacted, check it with mockd lint"
        )
        return false
    }

    /// The response header lines to store, in order, and whether redaction changed any. Left out (and counted for
    /// the report): pseudo-headers written without their colon, invalid names, fields mockd computes or never
    /// sends, unstable headers.
    mutating func storedHeaders(
        of response: HARResponse,
        method: String,
        redact: Bool,
        entry: HAREntry
    ) -> (lines: [String], redacted: Bool) {
        var headers: [String] = []
        var redacted = false
        // Chrome writes repeated fields (several Set-Cookie) as one value joined by newlines: one field each.
        // An empty value is a field all the same (`X-Feature-Flags:`): kept.
        let fields = response.headers.flatMap { field in
            // Most values hold no line break: checked by byte, the split (by `Character`) is left for those that do.
            field.value.isEmpty || !field.value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D })
                ? [field]
                : field.value.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).map {
                    HTTPHeaders.Field(name: field.name, value: String($0))
                }
        }
        for field in fields {
            if HARCompiler.isPseudoHeaderWithoutColon(field) {
                pseudoHeaders[field.name, default: 0] += 1
                continue
            }
            guard HTTPToken.isToken(field.name) || field.name.hasPrefix(":") else {
                droppedHeaders["(invalid name '\(field.name)')", default: 0] += 1
                continue
            }
            if ResponseHeaderPolicy.isDropped(field.name, method: method) {
                if !field.name.hasPrefix(":") { droppedHeaders[field.name.asciiLowercased, default: 0] += 1 }
                continue
            }
            let lower = field.name.asciiLowercased
            if unstableHeaders.contains(lower) {
                unstableDropped[lower, default: 0] += 1
                continue
            }
            var value = field.value
            if redact {
                value = redactor.redactHeader(name: field.name, value: value, entry: entry.index)
                if value != field.value { redacted = true }
            }
            headers.append(HeaderLine.format(.init(name: field.name, value: value)))
        }
        return (headers, redacted)
    }

    /// A redirect's `Location` line taken from the HAR's `redirectURL` when its headers hold none (noted for the
    /// report), else `nil`.
    mutating func locationFromRedirectURL(of response: HARResponse, entry: HAREntry) -> String? {
        guard (300..<400).contains(response.status), response.headers["location"] == nil,
            let target = response.redirectURL, HeaderLine.isValidValue(target)
        else { return nil }
        // HAR 1.2: `redirectURL` is the target of the `Location` header; a producer that kept no headers still
        // recorded where the redirect went.
        locationsFromRedirectURL.append(entry.index)
        return HeaderLine.format(.init(name: "Location", value: target))
    }

    /// The status to store and, for a 206 holding part of the representation, which part (the step's `partial`).
    /// A 206 holding every byte is the 200 it amounts to, its `Content-Range` line removed (noted for the report).
    mutating func wholeOrPartial(
        _ response: HARResponse,
        body: Data,
        headers: inout [String],
        entry: HAREntry
    ) -> (status: Int, partial: String?) {
        guard response.status == 206 else { return (response.status, nil) }
        let contentRange = response.headers["content-range"]?.trimmingCharacters(in: .whitespaces)
        if let contentRange, HARCompiler.isWholeRange(contentRange, length: body.count) {
            // Every byte arrived: the whole representation, as a 200 answers it (a range request is cut from it).
            headers.removeAll { $0.asciiLowercased.hasPrefix("content-range:") }
            wholePartials.append(entry.index)
            return (200, nil)
        }
        let partial =
            contentRange.map {
                "recorded only as 206 Partial Content (Content-Range: \($0)): the recording holds part of the representation; a GET whose Range lies inside those bytes gets them"
            }
            ?? "recorded only as 206 Partial Content without a Content-Range: which part of the representation it holds is unknown"
        return (206, partial)
    }

    /// A 304's validators: the recorded request's non-empty `If-None-Match` / `If-Modified-Since` lines.
    static func validators(of request: HARRequest) -> [String] {
        request.headers.fields.compactMap { field in
            let lower = field.name.asciiLowercased
            guard lower == "if-none-match" || lower == "if-modified-since",
                !field.value.trimmingCharacters(in: .whitespaces).isEmpty
            else { return nil }
            return HeaderLine.format(.init(name: HARImporter.canonicalHeaderName(lower), value: field.value))
        }
    }

    /// The dates of a recorded answer (`DateFields`) relative to the entry's `startedDateTime` (else the answer's
    /// `Date`), noted for the report; `nil` when it holds none.
    /// - Parameter parsedBody: What `body` parsed as, when it was parsed already (`nil`: parse it if it is JSON).
    mutating func recordedDates(
        _ entry: HAREntry,
        body: Data,
        parsedBody: Any? = nil,
        headers: [String]
    ) -> MockSetFile.DatesEntry? {
        let reference =
            entry.startedDateTime
            ?? entry.response?.headers["date"].flatMap { DateText.parse($0.trimmingCharacters(in: .whitespaces))?.date }
        // A recording dated outside 1990–9999 (a broken or hostile `startedDateTime`) has no dates to keep relative
        // to it.
        guard let reference, let recordedAtMs = Int64(exactly: (reference.timeIntervalSince1970 * 1000).rounded()),
            DateFields.recordingTimesMs.contains(recordedAtMs)
        else { return nil }
        let inBody = DateFields.inJSON(body, parsed: parsedBody, recordedAtMs: recordedAtMs)
        let fields = headers.compactMap { HeaderLine.parse($0).map { (name: $0.name, value: $0.value) } }
        let inHeaders = DateFields.inHeaders(fields, recordedAtMs: recordedAtMs)
        guard !inBody.isEmpty || !inHeaders.isEmpty else { return nil }
        for found in inBody { report.noteDate("body \(found.location)", kind: found.kind, entry: entry.index) }
        for found in inHeaders {
            let name = HARImporter.canonicalHeaderName(found.location.asciiLowercased)
            report.noteDate("header \(name)", kind: found.kind, entry: entry.index)
        }
        report.datedResponses += 1
        return MockSetFile.DatesEntry(
            recordedAt: DateFormats.rfc3339Milliseconds(Date(timeIntervalSince1970: Double(recordedAtMs) / 1000)),
            body: inBody.isEmpty ? nil : sharedDateLocations.shared(ByteKeys(inBody.map(\.location))).values,
            headers: inHeaders.isEmpty ? nil : sharedDateLocations.shared(ByteKeys(inHeaders.map(\.location))).values
        )
    }

    /// Whether a client reads no body of this answer, so that status and headers are the whole of it: the answer to
    /// a `HEAD`, a 1xx, 204 No Content, 205 Reset Content, 304 Not Modified (RFC 9110 §6.4.1, §15.3.5, §15.3.6,
    /// §15.4.5), and a redirect that names its target (`Location`, or the HAR's `redirectURL`), which a client
    /// follows without reading the body (§15.4).
    static func isBodiless(_ response: HARResponse, method: String) -> Bool {
        let status = response.status
        if method == "HEAD" || status < 200 || status == 204 || status == 205 || status == 304 { return true }
        guard (300..<400).contains(status) else { return false }
        let location = response.headers["location"]?.trimmingCharacters(in: .whitespaces) ?? ""
        return !location.isEmpty || response.redirectURL != nil
    }

    /// Whether a GraphQL answer is Apollo's automatic-persisted-query refusal (`PersistedQueryNotFound`, or
    /// `extensions.code` `PERSISTED_QUERY_NOT_FOUND`): the client sends the document next, which is what to keep.
    static func isPersistedQueryNotFound(_ body: Data) -> Bool {
        guard
            ByteSearch.contains(Array("ERSISTED".utf8), in: body)
                || ByteSearch.contains(Array("ersisted".utf8), in: body),
            let object = try? JSONObjectReader.jsonObject(with: body) as? [String: Any],
            let errors = object["errors"] as? [[String: Any]], !errors.isEmpty
        else { return false }
        return errors.allSatisfy { error in
            error["message"] as? String == "PersistedQueryNotFound"
                || (error["extensions"] as? [String: Any])?["code"] as? String == "PERSISTED_QUERY_NOT_FOUND"
        }
    }

    /// Whether `Content-Range: bytes 0-(N-1)/N` covers all `length` bytes of a body (RFC 9110 §14.4).
    static func isWholeRange(_ contentRange: String, length: Int) -> Bool {
        let lower = contentRange.lowercased()
        guard lower.hasPrefix("bytes ") else { return false }
        let numbers = lower.dropFirst(6).split(whereSeparator: { $0 == "-" || $0 == "/" })
        guard numbers.count == 3, let first = Int(numbers[0]), let last = Int(numbers[1]), let total = Int(numbers[2])
        else { return false }
        return first == 0 && last == total - 1 && total == length && length > 0
    }

    /// Whether a response header is a SPDY/HTTP/2 pseudo-header that an old Chrome (or a HAR tool reading its
    /// protocol log) wrote without its colon: a lower-case `status` holding a status code (`200`, `302 Found`) or
    /// a lower-case `version` holding `HTTP/1.1`. The status line says both; as fields they were never sent.
    static func isPseudoHeaderWithoutColon(_ field: HTTPHeaders.Field) -> Bool {
        // The value is trimmed only under the two names: every recorded header field is asked (trimming them all was
        // 2.8% of a 100,000-entry import).
        switch field.name {
        case "status":
            let value = field.value.trimmingCharacters(in: .whitespaces)
            let digits = value.prefix(while: \.isASCII).prefix(3)
            return digits.count == 3 && digits.allSatisfy(\.isNumber)
                && (value.count == 3 || value.dropFirst(3).first == " ")
        case "version":
            let upper = field.value.trimmingCharacters(in: .whitespaces).uppercased()
            return upper.hasPrefix("HTTP/") && upper.dropFirst(5).allSatisfy { $0.isNumber || $0 == "." }
                && upper.count > 5
        default:
            return false
        }
    }
}
