import Foundation

/// One `log.entries[i]` as `HARStreamReader` found it, made a `HAREntry` by `entry()`: the scanner only delimits
/// an entry, so that the JSON parse (the larger half of reading a HAR) can run on another thread
/// (`HARReadAhead`), with the error and line numbers it would have given in place.
struct HARPendingEntry: Sendable {
    private enum Source: Sendable {
        /// From a whole-file parse (a pipe, UTF-16 text): already read.
        case parsed(HAREntry)
        /// The entry's bytes wrapped as `[entry]` (see `HARStreamScanner.parse(_:context:)`).
        case wrapped(Data, HARStreamScanner.ParseContext)
    }

    /// The entry's position in `log.entries`.
    let index: Int
    private let source: Source

    init(parsed entry: HAREntry) {
        index = entry.index
        source = .parsed(entry)
    }

    init(index: Int, wrapped bytes: Data, context: HARStreamScanner.ParseContext) {
        self.index = index
        source = .wrapped(bytes, context)
    }

    /// The entry, parsed now if it was only scanned.
    /// - Throws: `HARImportError` (`.notJSON` with the file's line, or `.notHAR` for a member name given twice),
    ///   as `HARStreamReader.read(contentsOf:displayName:progress:entry:)` throws it.
    func entry() throws -> HAREntry {
        switch source {
        case .parsed(let entry):
            return entry
        case .wrapped(let bytes, let context):
            // The reader reads only text without a repeated member name (names compared as Swift strings, as the
            // duplicate check compares them): what it reads needs no check, which cost a tenth of a parse.
            if let wrapped = JSONObjectReader.value(of: bytes) {
                let value = HARStreamScanner.unwrapped(wrapped)
                return HARReader.readEntry(JSONNode(value, path: "log.entries[\(index)]"), index: index)
            }
            let value = try HARStreamScanner.parse(bytes, context: context)
            // A repeated member name makes the entry ambiguous.
            if let duplicate = DuplicateKeyCheck.firstDuplicate(in: bytes) {
                let inner = duplicate.path.hasPrefix("[0]") ? String(duplicate.path.dropFirst(3)) : duplicate.path
                throw HARImportError(
                    .notHAR,
                    file: context.fileName,
                    jsonPath: "log.entries[\(index)]"
                        + (inner.hasPrefix("[") || inner.hasPrefix(".") || inner.isEmpty ? inner : "." + inner),
                    message:
                        "\(duplicate.phrase) (entry \(index + 1)); JSON parsers disagree on which one counts"
                )
            }
            return HARReader.readEntry(JSONNode(value, path: "log.entries[\(index)]"), index: index)
        }
    }
}
