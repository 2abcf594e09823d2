import Testing

@testable import MockdCore

/// The shape of a body file's path as an index writes it, read byte by byte: the directory part of a plain path, the
/// unusual ones resolved the long way, the refused ones with their reason.
struct SetRelativePathTests {
    @Test(arguments: [
        ("bodies/GET_users.json", SetRelativePath.Shape.plain(directory: "bodies")),
        ("GET_users.json", .plain(directory: "")),
        ("a/b/c.json", .plain(directory: "a/b")),
        ("réponses/é.json", .plain(directory: "réponses")),
        ("corps/日本/x.json", .plain(directory: "corps/日本")),
        ("..json", .plain(directory: "")),
        ("bodies/.hidden", .plain(directory: "bodies")),
        ("bodies//x.json", .unusual),
        ("./x.json", .unusual),
        ("bodies/.", .unusual),
        ("bodies/", .unusual),
        ("../x.json", .refused("has a '..' component")),
        ("bodies/..", .refused("has a '..' component")),
        ("/etc/passwd", .refused("is an absolute path")),
        ("", .refused("is empty")),
        ("bodies/a\u{0}b", .refused("holds a NUL byte")),
    ])
    func shapeOfAPath(_ path: String, _ expected: SetRelativePath.Shape) {
        #expect(SetRelativePath.shape(of: path) == expected)
        // A string whose bytes are not contiguous (bridged, or a substring made a string elsewhere) reads the same.
        #expect(SetRelativePath.shape(of: String(path.unicodeScalars.map(Character.init))) == expected)
    }
}
