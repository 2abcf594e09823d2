import Foundation
import Testing

@testable import MockdCore

/// The stub ids and body file names `import-har` writes: reviewers read them in diffs, so they must not change when
/// the naming code does.
struct FileNamerTests {
    @Test(arguments: [
        ("GET", "/v1/messages", "", "GET_v1_messages"),
        ("GET", "/", "", "GET_root"),
        ("GET", "/v1//messages/", "", "GET_v1_messages"),
        ("GET", "/v1/messages", "limit=20&page=2", "GET_v1_messages__limit-20_page-2"),
        ("GET", "/caf\u{E9}/men\u{FC}", "", "GET_caf_C3_A9_men_C3_BC"),
        ("GET", "/a b/{id}", "q=a+b&x=%2F", "GET_a_20b_7Bid_7D__q-a_20b_x-_2F"),
        ("GET", "/.well-known/.hidden", "", "GET_well-known_.hidden"),
        ("POST", "/items;v=2/@me:x", "", "POST_items_v_2_me_x"),
        ("DELETE", "/~user/a__b", "", "DELETE__user_a_b"),
    ])
    func idSpellsMethodPathAndQuery(_ method: String, _ path: String, _ query: String, _ expected: String) {
        var namer = FileNamer()
        let key = RequestKey(method: method, rawPath: path, rawQuery: query)
        #expect(namer.uniqueID(for: key) == expected)
    }

    @Test func idIsCutAt96CharactersAndRepeatsAreNumbered() {
        var namer = FileNamer()
        let key = RequestKey(method: "GET", rawPath: "/" + String(repeating: "segment/", count: 20), rawQuery: "")
        let first = namer.uniqueID(for: key)
        #expect(first == "GET_" + String(String(repeating: "segment_", count: 20).prefix(92)))
        #expect(first.count == 96)
        #expect(namer.uniqueID(for: key) == first + "-2")
        #expect(namer.uniqueID(for: key) == first + "-3")
    }

    @Test func idsDifferingOnlyInCaseAreNumbered() {
        var namer = FileNamer()
        #expect(namer.uniqueID(for: RequestKey(method: "GET", rawPath: "/Users", rawQuery: "")) == "GET_Users")
        #expect(namer.uniqueID(for: RequestKey(method: "GET", rawPath: "/users", rawQuery: "")) == "GET_users-2")
        #expect(namer.uniqueID(for: RequestKey(method: "GET", rawPath: "/USERS", rawQuery: "")) == "GET_USERS-3")
    }

    @Test func labelStandsForTheQuery() {
        var namer = FileNamer()
        let key = RequestKey(method: "POST", rawPath: "/graphql", rawQuery: "op=1")
        #expect(namer.uniqueID(for: key, label: "GetUser") == "POST_graphql__GetUser")
        #expect(namer.uniqueID(for: key, label: "Get User/\u{1F600}") == "POST_graphql__Get_User_")
    }

    @Test(arguments: [
        ("abc", "abc"), ("a b\tc", "a_b_c"), ("..x", "x"), ("._x", "_x"), ("a..b", "a..b"), ("\u{E9}\u{E9}x", "_x"),
        ("x\u{1F600}\u{1F600}", "x_"), ("a-_-b", "a-_-b"), ("", ""), ("..", ""), ("A~Z", "A_Z"),
    ])
    func sanitizeKeepsASCIILettersDigitsDashAndDot(_ text: String, _ expected: String) {
        #expect(FileNamer.sanitize(text) == expected)
    }

    @Test(arguments: [
        ("application/json; charset=utf-8", Data("{}".utf8), "json"), ("Image/PNG", Data([0x89]), "png"),
        ("application/problem+json", Data("{}".utf8), "json"), ("application/atom+xml", Data(), "xml"),
        ("application/octet-stream", Data("plain".utf8), "txt"), ("application/octet-stream", Data([0xFF]), "bin"),
        ("", Data([0xC3, 0x28]), "bin"), ("text/event-stream", Data(), "txt"), ("image/jpg", Data(), "jpg"),
    ])
    func extensionFollowsTheMediaTypeElseTheBytes(_ mimeType: String, _ body: Data, _ expected: String) {
        #expect(FileNamer.fileExtension(mimeType: mimeType, body: body) == expected)
    }

    @Test func bodyFilesAreUniqueCaseInsensitivelyAndKeepTheirOwnExtension() {
        var namer = FileNamer()
        let json = Data("{}".utf8)
        #expect(namer.uniqueFile("GET_a", mimeType: "application/json", body: json) == "bodies/GET_a.json")
        #expect(namer.uniqueFile("GET_A", mimeType: "application/json", body: json) == "bodies/GET_A-2.json")
        #expect(
            namer.uniqueFile("GET_a", suffix: "_2", mimeType: "application/json", body: json) == "bodies/GET_a_2.json"
        )
        #expect(namer.uniqueFile("GET_logo.JPEG", mimeType: "image/jpeg", body: Data()) == "bodies/GET_logo.JPEG")
        #expect(namer.uniqueFile("GET_logo.jpeg", mimeType: "image/jpeg", body: Data()) == "bodies/GET_logo-2.jpeg")
        #expect(namer.uniqueFile("GET_page.htm", mimeType: "text/html", body: Data()) == "bodies/GET_page.htm")
        #expect(namer.uniqueFile("GET_v1.2", mimeType: "application/json", body: json) == "bodies/GET_v1.2.json")
    }
}
