/// Collapses a message onto one line.
func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).joined(separator: " ")
}

/// `text` with each control character written as an escape (`\n`, `\r`, `\t`, `\u{1B}`, C0, DEL, C1, and the line
/// and paragraph separators): a value quoted from a user's file (an id with a line break, a path with a terminal
/// escape) never splits an error's one line nor drives the terminal.
func escapingControls(_ text: String) -> String {
    func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var escaped = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": escaped.append(contentsOf: "\\n".unicodeScalars)
        case "\r": escaped.append(contentsOf: "\\r".unicodeScalars)
        case "\t": escaped.append(contentsOf: "\\t".unicodeScalars)
        case _ where isControl(scalar):
            escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
        default: escaped.append(scalar)
        }
    }
    return String(escaped)
}
