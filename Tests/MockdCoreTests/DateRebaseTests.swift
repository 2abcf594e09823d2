import Foundation
import MockdFormat
import Testing

@testable import MockdCore

/// Recorded dates, in process: which values of an answer are dates (and which look like one but are not), how each
/// layout is read and written back, and a body moved by the session's clock with every other byte kept.
struct DateRebaseTests {
    /// 2026-11-29T20:00:00.000Z
    static let recordedAtMs: Int64 = 1_795_982_400_000

    @Test func eachLayoutRoundTripsByteForByte() throws {
        for text in [
            "2026-11-29T20:05:00Z", "2026-11-29T20:05:00.123Z", "2026-11-29T21:05:00+01:00", "2026-11-29 20:05:00",
            "2026-11-29T20:05Z", "2026-11-29T20:05:00.123456-0530", "2026-11-29t20:05:00z", "2026-11-29T20:05:00,5+01",
            "2026-11-29", "Sun, 29 Nov 2026 20:05:00 GMT", "Sun, 29 Nov 2026 20:05:00 +0000",
        ] {
            let parsed = try #require(DateText.parse(text), "\(text)")
            #expect(parsed.text == text)
        }
        #expect(DateText.parse("2026-11-29T20:05:00Z")?.milliseconds == 1_795_982_700_000)
        #expect(DateText.parse("2026-11-29T21:05:00+01:00")?.milliseconds == 1_795_982_700_000)
        // A fraction's first three digits are the milliseconds, missing ones zeros; the rest is kept as written.
        #expect(DateText.parse("2026-11-29T20:05:00.5Z")?.milliseconds == 1_795_982_700_500)
        #expect(DateText.parse("2026-11-29T20:05:00.12Z")?.milliseconds == 1_795_982_700_120)
        #expect(DateText.parse("2026-11-29T20:05:00.007Z")?.milliseconds == 1_795_982_700_007)
        #expect(DateText.parse("2026-11-29T20:05:00.98765Z")?.milliseconds == 1_795_982_700_987)
        #expect(DateText.parse("2026-11-29T20:05:00.98765Z")?.subMilliseconds == "65")
        #expect(DateText.parse("2026-11-29T20:05:00.Z") == nil)
        #expect(DateText.parse("2026-11-29T20:05:00.1234567890Z") == nil)
        #expect(DateText.parse("2026-02-30") == nil)
        #expect(DateText.parse("2026-11-29T24:00:00Z") == nil)
        #expect(DateText.parse("Mon, 29 Nov 2026 20:05:00 GMT")?.text == "Sun, 29 Nov 2026 20:05:00 GMT")
        let plausible = DateFields.plausibleEpoch(around: Self.recordedAtMs)
        #expect(DateText.epoch("1795982700", plausible: plausible)?.layout == .epochSeconds(fractionDigits: 0))
        #expect(DateText.epoch("1795982700000", plausible: plausible)?.layout == .epochMilliseconds)
        #expect(DateText.epoch("1795982700.25", plausible: plausible)?.text == "1795982700.25")
        #expect(DateText.epoch("300", plausible: plausible) == nil)
        #expect(DateText.epoch("0", plausible: plausible) == nil)
    }

    /// A stub's `recordedAt` must be an RFC 3339 date-time with a zone: checked without making a `DateText`, and
    /// exactly the texts whose `DateText` is a zoned ISO date-time pass, at the same instant.
    @Test func recordedAtIsAZonedDateTime() {
        let texts = [
            "2026-11-29T20:05:00Z", "2026-11-29t20:05:00z", "2026-11-29T21:05:00+01:00", "2026-11-29T20:05:00.123Z",
            "2026-11-29T20:05:00.123456-0530", "2026-11-29T20:05:00,5+01", "2026-11-29T20:05Z", "2026-11-29 20:05:00",
            "2026-11-29T20:05:00", "2026-11-29", "Sun, 29 Nov 2026 20:05:00 GMT", "1795982700", "",
            "2026-11-29T20:05:00Q", "2026-11-29T20:05:00+24:00", "2026-11-29T20:05:00Z ", "2026-02-29T00:00:00Z",
            "2028-02-29T00:00:00Z",
        ]
        for text in texts {
            var expected: Int64?
            if let parsed = DateText.parse(text), case .iso(_, _, _, _, let zone) = parsed.layout, zone != .none {
                expected = parsed.milliseconds
            }
            #expect(DateText.zonedISOInstantMs(text) == expected, "\(text)")
        }
        #expect(DateText.zonedISOInstantMs("2026-11-29T21:05:00+01:00") == 1_795_982_700_000)
        #expect(DateText.zonedISOInstantMs("2028-02-29T00:00:00Z") != nil)
        #expect(DateText.zonedISOInstantMs("2026-11-29 20:05:00") == nil)
        #expect(DateText.zonedISOInstantMs("2026-02-29T00:00:00Z") == nil)
    }

    @Test func shiftingKeepsTheLayoutAndZone() throws {
        let week: Int64 = 7 * 86_400_000 + 3_600_000 + 250
        func shifted(_ text: String) throws -> String {
            try #require(DateText.parse(text, epochFrom: DateFields.plausibleEpoch(around: Self.recordedAtMs)))
                .shifted(byMs: week, days: 7).text
        }
        #expect(try shifted("2026-11-29T20:05:00Z") == "2026-12-06T21:05:00Z")
        #expect(try shifted("2026-11-29T20:05:00.123Z") == "2026-12-06T21:05:00.373Z")
        #expect(try shifted("2026-11-29T23:30:00+01:00") == "2026-12-07T00:30:00+01:00")
        #expect(try shifted("2026-11-29 20:05") == "2026-12-06 21:05")
        #expect(try shifted("2026-11-30") == "2026-12-07")
        #expect(try shifted("Sun, 29 Nov 2026 20:05:00 GMT") == "Sun, 06 Dec 2026 21:05:00 GMT")
        #expect(try shifted("1795982700") == "1796591100")
        #expect(try shifted("1795982700000") == "1796591100250")
        #expect(try shifted("2026-11-29T20:05:00.123456Z") == "2026-12-06T21:05:00.373456Z")
    }

    @Test func datesAreFoundWhereTheyAreAndOnlyThere() {
        let body = Data(
            #"""
            {"code": "4711", "expiresAt": "2026-11-29T20:05:00Z", "expiresIn": 300, "createdAtMs": 1795982400000,
             "updated_at": 1795982400, "id": 1795982400, "userId": "2026-11-29T20:00:00Z", "version": "2026-06-20",
             "dateOfBirth": "1990-04-01", "never": "9999-12-31T23:59:59Z", "epoch": "1970-01-01T00:00:00Z",
             "count": 1795982400, "flag": true, "exp": 1795982700, "timeoutMs": 5000,
             "messages": [{"text": "hi", "sentAt": "2026-11-29T19:58:00Z"}, {"text": "yo", "sentAt": "2026-11-29T19:59:00Z"}],
             "delivery": {"date": "2026-11-30", "window": "tomorrow"}, "last_seen": "Sun, 29 Nov 2026 19:58:00 GMT"}
            """#.utf8
        )
        let found = DateFields.inJSON(body, recordedAtMs: Self.recordedAtMs)
        #expect(
            found.map { "\($0.location) \($0.kind)" } == [
                "/createdAtMs epoch ms", "/delivery/date date", "/exp epoch s", "/expiresAt ISO 8601",
                "/last_seen HTTP-date", "/messages/*/sentAt ISO 8601", "/updated_at epoch s",
            ]
        )
        #expect(DateFields.inJSON(Data("<html>2026-11-29</html>".utf8), recordedAtMs: Self.recordedAtMs).isEmpty)
        let headers = DateFields.inHeaders(
            [
                ("Expires", "Sun, 29 Nov 2026 21:00:00 GMT"), ("Last-Modified", "Sun, 29 Nov 2026 19:00:00 GMT"),
                ("Set-Cookie", "sid=1; Path=/; Expires=Mon, 30 Nov 2026 20:00:00 GMT; HttpOnly"),
                ("X-Response-Time", "8"), ("Expires", "0"), ("X-RateLimit-Reset", "1795986000"), ("ETag", "\"v1\""),
            ],
            recordedAtMs: Self.recordedAtMs
        )
        #expect(
            headers.map { "\($0.location) \($0.kind)" } == [
                "Expires HTTP-date", "Last-Modified HTTP-date", "Set-Cookie HTTP-date", "X-RateLimit-Reset epoch s",
            ]
        )
    }

    @Test func pointersEscapeKeysAndHeaderNamesIgnoreCase() {
        let body = Data(
            #"{"a/b~c": {"updatedAt": "2026-11-29T20:05:00Z"}, "~": {"at": 1795982400}, "plain": {"seenAt": "x"}}"#.utf8
        )
        #expect(
            DateFields.inJSON(body, recordedAtMs: Self.recordedAtMs).map { "\($0.location) \($0.kind)" } == [
                "/a~1b~0c/updatedAt ISO 8601", "/~0/at epoch s",
            ]
        )
        let headers = DateFields.inHeaders(
            [
                ("expires", " \tSun, 29 Nov 2026 21:00:00 GMT "), ("EXPIRES", "Sun, 29 Nov 2026 22:00:00 GMT"),
                ("set-cookie", "sid=1; expires=Mon, 30 Nov 2026 20:00:00 GMT"),
                ("Last-Modified", "\u{00A0}Sun, 29 Nov 2026 19:00:00 GMT"),
            ],
            recordedAtMs: Self.recordedAtMs
        )
        // One finding per header name whatever its case; white space around a value, ASCII or not, is not part of it.
        #expect(
            headers.map { "\($0.location) \($0.kind)" } == [
                "expires HTTP-date", "set-cookie HTTP-date", "Last-Modified HTTP-date",
            ]
        )
    }

    /// Found by fuzzing (scripts/fuzz har): a Fiddler entry dated in the year 1005 made the Unix-time span an empty
    /// range and stopped the importer. A recording dated outside 1990–9999 counts as made at the nearer end.
    @Test func aRecordingFromTheYear1005ImportsAndServes() throws {
        let har = #"""
            {"log": {"version": "1.2", "creator": {"name": "Fiddler", "version": "2.3.0.0"}, "entries": [{
              "startedDateTime": "1005-08-30T16:47:39.1859821-04:00", "time": 94,
              "request": {"method": "GET", "url": "http://bango.net/v1/code", "httpVersion": "HTTP/1.1", "headers": []},
              "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Last-Modified", "value": "Tue, 27 Jan 2004 11:54:00 GMT"},
                            {"name": "X-RateLimit-Reset", "value": "1"}],
                "content": {"size": 37, "mimeType": "application/json", "text": "{\"expiresAt\": 1, \"sentAt\": \"1005-08-30\"}"}}
            }]}}
            """#
        let archive = try HARReader.parse(Data(har.utf8), fileName: "fiddler.har")
        let (build, _) = HARImporter.build(archive, options: HARImportOptions())
        #expect(build.file.stubs.count == 1)
        #expect(build.file.stubs.first?.responses.first?.dates == nil)
        #expect(DateFields.plausibleEpoch(around: -30_000_000_000_000).contains(631_152_000_000))
        #expect(DateFields.plausible(around: .max).contains(253_402_300_799_999))
        let shift = try DateShift(
            recordedAt: "1005-08-30T16:47:39Z",
            body: ["/expiresAt"],
            headers: ["X-RateLimit-Reset"]
        )
        #expect(shift.body(Data(#"{"expiresAt": 1}"#.utf8), now: Date()) == Data(#"{"expiresAt": 1}"#.utf8))
    }

    @Test func aBodyMovesWithEveryOtherByteKept() throws {
        let shift = try DateShift(
            recordedAt: "2026-11-29T20:00:00.000Z",
            body: ["/expiresAt", "/messages/*/sentAt", "/createdAtMs", "/delivery/date", "/missing", "/list/1"],
            headers: ["Expires", "Set-Cookie"]
        )
        let body = Data(
            "{\n  \"expiresAt\" : \"2026-11-29T20:05:00Z\",\n  \"messages\": [{\"sentAt\":\"2026-11-29T19:58:00Z\"}, {\"sentAt\": \"not a date\"}],\n  \"createdAtMs\": 1795982400000, \"delivery\": {\"date\": \"2026-11-30\"}, \"list\": [\"2026-11-29\", \"2026-11-29\"]\n}\n"
                .utf8
        )
        // A week, an hour and 250 ms later.
        let now = Date(timeIntervalSince1970: Double(Self.recordedAtMs + 7 * 86_400_000 + 3_600_250) / 1000)
        #expect(
            String(decoding: shift.body(body, now: now), as: UTF8.self)
                == "{\n  \"expiresAt\" : \"2026-12-06T21:05:00Z\",\n  \"messages\": [{\"sentAt\":\"2026-12-06T20:58:00Z\"}, {\"sentAt\": \"not a date\"}],\n  \"createdAtMs\": 1796590800250, \"delivery\": {\"date\": \"2026-12-07\"}, \"list\": [\"2026-11-29\", \"2026-12-06\"]\n}\n"
        )
        #expect(shift.body(Data("not json".utf8), now: now) == Data("not json".utf8))
        let headers = shift.headers(
            HTTPHeaders([
                ("Expires", "Sun, 29 Nov 2026 21:00:00 GMT"),
                ("Set-Cookie", "sid=1; Path=/; Expires=Mon, 30 Nov 2026 20:00:00 GMT; HttpOnly"),
                ("Last-Modified", "Sun, 29 Nov 2026 19:00:00 GMT"),
            ]),
            now: now
        )
        #expect(
            headers.fields.map { "\($0.name): \($0.value)" } == [
                "Expires: Sun, 06 Dec 2026 22:00:00 GMT",
                "Set-Cookie: sid=1; Path=/; Expires=Mon, 07 Dec 2026 21:00:00 GMT; HttpOnly",
                "Last-Modified: Sun, 29 Nov 2026 19:00:00 GMT",
            ]
        )
        #expect(throws: TemplateProblem.self) {
            try DateShift(recordedAt: "2026-11-29T20:00:00", body: [], headers: [])
        }
        #expect(throws: TemplateProblem.self) {
            try DateShift(recordedAt: "2026-11-29T20:00:00Z", body: ["a"], headers: [])
        }
    }
}

/// Field names are split into words byte by byte when they are ASCII (an import asks this of every field of every
/// JSON body); the split must be the one `Character`s and their Unicode properties give.
@Suite struct DateFieldNameTests {
    @Test func asciiNamesSplitAsCharactersDo() {
        let names = [
            "", "a", "A", "createdAt", "created_at_ms", "X-RateLimit-Reset", "expires.at", "URLCreatedAt",
            "dateOfBirth",
            "apiVersion", "updated at", "lastSeen2", "v2Date", "__x__", "ID", "userId", "a\r\nB", "tab\tName",
            "$date", "@timestamp", "HTTPDate", "exp", "iat_UTC", "a--b..c  d",
        ]
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZz09_-. $@\r\nQxX")
        let random = (0..<2_000).map { _ in
            String(
                (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            )
        }
        for name in names + random {
            #expect(DateFields.words(name) == DateFields.characterWords(name), "\(name.debugDescription)")
        }
        #expect(DateFields.words("createdAtMs") == ["created", "at", "ms"])
        #expect(DateFields.words("X-RateLimit-Reset") == ["x", "rate", "limit", "reset"])
        #expect(DateFields.words("créééAt") == ["crééé", "at"])  // not ASCII: by Characters
    }

    @Test func aNameIsKeptOrDateNamedNeverBoth() {
        #expect(DateFields.meaning(of: "createdAtMs") == (kept: false, dateNamed: true))
        #expect(DateFields.meaning(of: "dateOfBirth") == (kept: true, dateNamed: false))
        #expect(DateFields.meaning(of: "expiresIn") == (kept: false, dateNamed: false))
        #expect(DateFields.meaning(of: "ms") == (kept: false, dateNamed: false))
        #expect(DateFields.meaning(of: "créationDate") == (kept: false, dateNamed: true))
    }
}
