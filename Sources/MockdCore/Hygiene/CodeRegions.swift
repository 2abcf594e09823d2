import Foundation

/// Where a response body is program code rather than data, so that hygiene never rewrites it.
///
/// Card-number masking turns digits into `*`: inside data (a JSON value, a form field, text) that hides a number;
/// inside code (a JavaScript number literal, a CSS value, WebAssembly) it breaks the program. Code is a body served
/// as JavaScript, CSS or WebAssembly (by media type, or by the path's extension when the type says nothing), and in
/// an HTML page the content of its `<script>` (other than JSON data blocks) and `<style>` elements. `mockd lint`
/// still reports what it finds there.
enum CodeRegions {
    /// Media types whose bodies are code (RFC 9239 and the older names still served; CSS; WebAssembly).
    static let codeTypes: Set<String> = [
        "application/javascript", "text/javascript", "application/x-javascript", "application/ecmascript",
        "text/ecmascript", "text/x-javascript", "text/jscript", "application/x-ecmascript", "text/css",
        "application/wasm",
    ]
    /// Media types that name no content (`x-unknown` is Chrome's), where the path's extension decides.
    private static let unnamed: Set<String> = [
        "", "text/plain", "application/octet-stream", "x-unknown", "binary/octet-stream",
    ]
    private static let codeExtensions: Set<String> = ["js", "mjs", "cjs", "jsx", "css", "wasm"]

    /// Whether a body served as `mimeType` from `path` (a URL path, or `nil`) is code throughout.
    static func isCode(mimeType: String?, path: String?) -> Bool {
        let essence = MediaType.essence(of: mimeType)
        if codeTypes.contains(essence) { return true }
        guard unnamed.contains(essence), let path else { return false }
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = name.lastIndex(of: ".") else { return false }
        return codeExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// Whether a body of `mimeType` is an HTML page, whose script and style elements are code.
    static func isHTML(mimeType: String?) -> Bool {
        let essence = MediaType.essence(of: mimeType)
        return essence == "text/html" || essence == "application/xhtml+xml"
    }

    /// The UTF-16 ranges (as `NSRegularExpression` reports them) of the content of `<script>` and `<style>`
    /// elements in an HTML page; a script whose `type` names JSON (`application/ld+json`, `application/json`,
    /// `importmap`) is data and left out.
    static func scriptAndStyleRanges(inHTML text: String) -> [NSRange] {
        guard text.utf8.count >= 8 else { return [] }
        let nsText = text as NSString
        var ranges: [NSRange] = []
        for match in element.matches(in: text, range: NSRange(location: 0, length: nsText.length)) {
            let attributes = nsText.substring(with: match.range(at: 2)).lowercased()
            let isData =
                nsText.substring(with: match.range(at: 1)).lowercased() == "script"
                && (attributes.contains("json") || attributes.contains("importmap"))
            if !isData { ranges.append(match.range(at: 3)) }
        }
        return ranges
    }

    /// `<script …>…</script>` and `<style …>…</style>`, any case; group 1 the name, 2 the attributes, 3 the content.
    private static let element = try! NSRegularExpression(
        pattern: #"<(script|style)\b([^>]*)>(.*?)</\1\s*>"#,
        options: [.caseInsensitive, .dotMatchesLineSeparators]
    )
}
