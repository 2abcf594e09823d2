import Foundation

/// JSON text prepared so that `JSONSerialization` keeps every code point a producer wrote raw.
///
/// Foundation's parser drops a raw U+FEFF (bytes EF BB BF) that opens a string value: a HAR whose JavaScript body
/// starts with a byte order mark was imported 3 bytes short, its BOM gone. Every other code point, raw or escaped,
/// and an escaped `\uFEFF` anywhere, come through unchanged. Inside a JSON document those bytes can only stand in a
/// string (a leading BOM of the file is removed before), so writing each as the escape `\uFEFF` changes no value.
enum RawByteOrderMarks {
    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let escaped = Array(#"\uFEFF"#.utf8)

    /// `json` with every raw U+FEFF written as `\uFEFF`; `json` itself (no copy) when it holds none.
    static func escaped(_ json: Data) -> Data {
        guard var hit = ByteSearch.firstOffset(of: bom, in: json) else { return json }
        var output = Data()
        output.reserveCapacity(json.count + 16)
        var copied = 0
        while true {
            output.append(json[(json.startIndex + copied)..<(json.startIndex + hit)])
            output.append(contentsOf: escaped)
            copied = hit + bom.count
            guard let next = ByteSearch.firstOffset(of: bom, in: json, from: copied) else { break }
            hit = next
        }
        output.append(json[(json.startIndex + copied)...])
        return output
    }
}
