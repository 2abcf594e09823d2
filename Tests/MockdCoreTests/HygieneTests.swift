import Foundation
import MockdFormat
import Testing

@testable import MockdCore

/// Redaction of secrets and personal data at import: what is replaced, with which placeholder, and that
/// everything else keeps its exact bytes.
struct HygieneTests {
    @Test func setCookieKeepsNameAndAttributes() {
        var redactor = Redactor()
        #expect(
            redactor.redactHeader(name: "Set-Cookie", value: "sid=8f2a9c; Path=/; HttpOnly; Secure", entry: 0)
                == "sid={{cookie}}; Path=/; HttpOnly; Secure"
        )
        #expect(redactor.redactHeader(name: "Set-Cookie", value: "sid=; Max-Age=0", entry: 1) == "sid=; Max-Age=0")
        #expect(
            redactor.redactHeader(name: "Set-Cookie", value: "sid=deleted; Path=/", entry: 2) == "sid=deleted; Path=/"
        )
        #expect(redactor.log.items.map(\.description) == ["response header Set-Cookie value → {{cookie}}"])
    }

    @Test func credentialHeadersByName() {
        var redactor = Redactor()
        #expect(
            redactor.redactHeader(name: "Authorization", value: "Bearer abc.def.ghi", entry: 0) == "Bearer {{token}}"
        )
        #expect(redactor.redactHeader(name: "X-Api-Key", value: "k-123456", entry: 0) == "{{apiKey}}")
        #expect(redactor.redactHeader(name: "X-CSRF-Token", value: "c5rf", entry: 0) == "{{token}}")
        #expect(redactor.redactHeader(name: "Cookie", value: "a=1; b=2", entry: 0) == "a={{cookie}}; b={{cookie}}")
        #expect(redactor.redactHeader(name: "Content-Type", value: "application/json", entry: 0) == "application/json")
        #expect(
            redactor.redactHeader(
                name: "Location",
                value: "https://app.example/cb?code=1&access_token=zz9#done",
                entry: 0
            )
                == "https://app.example/cb?code=1&access_token={{accessToken}}#done"
        )
    }

    @Test func queryCredentialsBecomePlaceholdersWithMatchingRules() {
        var redactor = Redactor()
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig_nature-1"
        let query = redactor.redactQuery(
            "page=2&access_token=t0k3n&key=AIzaSyA-0123456789abcdefghijklmnopqrstu&t=\(jwt)&q=caf%C3%A9",
            entry: 4
        )
        #expect(query == "page=2&access_token={{accessToken}}&key={{apiKey}}&t={{jwt}}&q=caf%C3%A9")
        #expect(
            redactor.rules.queryValues == [
                .init(name: "access_token", placeholder: "accessToken"), .init(name: "key", placeholder: "apiKey"),
                .init(name: "t", placeholder: "jwt"),
            ]
        )
        // A live request with other real values normalises to the same key.
        let normalizer = RequestNormalizer(redactor.rules)
        let live = RequestKey(
            method: "GET",
            rawPath: "/v1",
            rawQuery: "q=caf%C3%A9&t=eyJother&access_token=new&key=k&page=2",
            normalizer: normalizer
        )
        let stored = RequestKey(method: "GET", rawPath: "/v1", rawQuery: query, normalizer: normalizer)
        #expect(live == stored)
    }

    @Test func jsonResponseBodyKeepsItsLayout() throws {
        var redactor = Redactor()
        let body = Data(
            """
            {
              "user": {"email": "anna.k@corp.io", "phone": "+44 7911 123456", "name": "Anna"},
              "access_token": "tok_live_123",
              "note": "write to bob@corp.io or see logo@2x.png",
              "support": "help@example.com",
              "count": 3
            }
            """.utf8
        )
        let redactedResult = redactor.redactResponseBody(body, mimeType: "application/json; charset=utf-8", entry: 7)
        let redacted = try #require(redactedResult)
        #expect(
            String(decoding: redacted, as: UTF8.self) == """
                {
                  "user": {"email": "{{email}}", "phone": "{{phone}}", "name": "Anna"},
                  "access_token": "{{accessToken}}",
                  "note": "write to {{email}} or see logo@2x.png",
                  "support": "help@example.com",
                  "count": 3
                }
                """
        )
        #expect(redactor.log.total == 4)
        #expect(
            String(decoding: Template.renderingFakeValues(in: redacted), as: UTF8.self).contains(
                #""email": "user@example.com", "phone": "+15555550100""#
            )
        )
    }

    @Test func escapedSlashesAndUnicodeEscapesStillRedactInPlace() throws {
        var redactor = Redactor()
        let body = Data(#"{"html":"<i>Jan, jan@mail.cz<\/i>\u000a","refresh_token":"a\/b"}"#.utf8)
        let redactedResult = redactor.redactResponseBody(body, mimeType: "text/plain", entry: 0)
        let redacted = try #require(redactedResult)
        #expect(
            String(decoding: redacted, as: UTF8.self)
                == #"{"html":"<i>Jan, {{email}}<\/i>\u000a","refresh_token":"{{refreshToken}}"}"#
        )
    }

    @Test func textBodiesRedactValueShapesOnly() throws {
        var redactor = Redactor()
        let html = Data("<p>Contact anna@corp.io, tel 555-0100.</p><script>var k='AKIAIOSFODNN7EXAMPLE';</script>".utf8)
        let redactedResult = redactor.redactResponseBody(html, mimeType: "text/html", entry: 0)
        let redacted = try #require(redactedResult)
        #expect(
            String(decoding: redacted, as: UTF8.self)
                == "<p>Contact {{email}}, tel 555-0100.</p><script>var k='{{apiKey}}';</script>"
        )
        #expect(
            redactor.redactResponseBody(Data([0x89, 0x50, 0x4E, 0x47, 0x40]), mimeType: "image/png", entry: 0) == nil
        )
        #expect(redactor.redactResponseBody(Data("nothing to see".utf8), mimeType: "text/plain", entry: 0) == nil)
    }

    @Test func requestBodiesRedactWholeValuesAndAddBodyRules() throws {
        var redactor = Redactor()
        let jsonResult = redactor.redactRequestBody(
            Data(#"{"email":"anna@corp.io","password":"hunter22","remember":true}"#.utf8),
            contentType: "application/json",
            entry: 1
        )
        let json = try #require(jsonResult)
        #expect(
            String(decoding: json, as: UTF8.self) == #"{"email":"{{email}}","password":"{{password}}","remember":true}"#
        )
        let formResult = redactor.redactRequestBody(
            Data("user=anna&pass=x1&client_secret=s3".utf8),
            contentType: "application/x-www-form-urlencoded",
            entry: 2
        )
        let form = try #require(formResult)
        #expect(String(decoding: form, as: UTF8.self) == "user=anna&pass={{password}}&client_secret={{secret}}")
        #expect(
            redactor.rules.bodyValues == [
                .init(name: "email", placeholder: "email"), .init(name: "password", placeholder: "password"),
                .init(name: "pass", placeholder: "password"), .init(name: "client_secret", placeholder: "secret"),
            ]
        )
        // Live bodies with real values canonicalise to the stored one.
        let normalizer = RequestNormalizer(redactor.rules)
        let live = BodyCanonicalizer.canonicalize(
            Data(#"{"remember":true,"password":"other","email":"x@y.io"}"#.utf8),
            contentType: "application/json",
            normalizer: normalizer
        )
        #expect(live == BodyCanonicalizer.canonicalize(json, contentType: "application/json", normalizer: normalizer))
    }

    @Test func notSecrets() {
        #expect(SecretPatterns.findings(in: "mail help@example.com, ops@test, icon@2x.png, react@18.2.0").isEmpty)
        #expect(SecretPatterns.findings(in: "{{token}} \(FakeValues.values["jwt"]!)").isEmpty)
        #expect(!SecretPatterns.isPhoneNumber("2026-11-29", fieldName: nil))
        #expect(!SecretPatterns.isPhoneNumber("12345678", fieldName: "id"))
        #expect(SecretPatterns.isPhoneNumber("(555) 010-0199", fieldName: "mobileNumber"))
        #expect(SecretPatterns.isPhoneNumber("+4915112345678", fieldName: nil))
        // Numbers reserved for fiction are not personal data.
        #expect(!SecretPatterns.isPhoneNumber("+1 206 555 0142", fieldName: "phone"))
        #expect(!SecretPatterns.isPhoneNumber("+44 7700 900123", fieldName: "phone"))
        #expect(SecretPatterns.isPhoneNumber("(206) 010-0199", fieldName: "phone"))
    }

    @Test func fakeValuePlaceholdersRenderAtLoadSoRedactedStubsStayStatic() {
        var response = MockResponse(
            status: 200,
            headers: HTTPHeaders([("Set-Cookie", "sid={{cookie}}; Path=/")]),
            body: Data(#"{"e":"{{email}}","t":"{{now}}"}"#.utf8)
        )
        response.applyTemplateMode(.on)
        #expect(response.headers["set-cookie"] == "sid=mockd-cookie-value; Path=/")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"e":"user@example.com","t":"{{now}}"}"#)
        #expect(response.template != nil)  // {{now}} still renders per request

        var redactedOnly = MockResponse(status: 200, body: Data("render('{{name}}') to {{email}}".utf8))
        redactedOnly.applyTemplateMode(.redactedOnly)
        #expect(String(decoding: redactedOnly.body, as: UTF8.self) == "render('{{name}}') to user@example.com")
        #expect(redactedOnly.template == nil)
    }
}
