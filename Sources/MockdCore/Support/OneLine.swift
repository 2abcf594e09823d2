/// Collapses a message onto one line.
func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).joined(separator: " ")
}

/// Whether `byte` is written escaped (`\xNN`) when user text goes on a line of mockd's own (a request log line, an
/// error): C0 controls and DEL, which would start a line of their own or move the operator's terminal.
@inline(__always)
func isEscapedControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }

/// The hex digits of a `\xNN` escape.
let controlEscapeDigits: StaticString = "0123456789ABCDEF"

/// `text` with each control byte (`isEscapedControl`) written as `\xNN`, as the request log line writes them: a
/// value quoted from a user's file (an id with a line break, a path with a terminal escape) never splits an error's
/// one line nor drives the terminal.
func escapingControls(_ text: String) -> String {
    guard text.utf8.contains(where: isEscapedControl) else { return text }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count + 8)
    for byte in text.utf8 {
        guard isEscapedControl(byte) else {
            bytes.append(byte)
            continue
        }
        bytes += [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        bytes += [controlEscapeDigits.utf8Start[Int(byte >> 4)], controlEscapeDigits.utf8Start[Int(byte & 0x0F)]]
    }
    return String(decoding: bytes, as: UTF8.self)
}
