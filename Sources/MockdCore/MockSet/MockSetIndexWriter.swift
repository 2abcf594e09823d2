import Foundation
import MockdFormat

/// Writes a set's `index.json` exactly as `JSONEncoder` pretty-prints it with sorted keys, one stub at a time: the
/// encoder's tree and output for a whole 100,000-stub index were most of an import's peak memory (the index is
/// about 0.7 × the HAR's size as text, and the tree several times that). Stubs are printed alone (by
/// `IndexStubPrinter`, or by the encoder and indented to their depth when they hold a field only it prints) and
/// streamed to the file in 1 MiB writes, hashed on the way for the compact index (`CompactIndexFile`) that names the
/// file it was made from.
enum MockSetIndexWriter {
    /// The array of stubs as an empty one prints at depth 1 with `.prettyPrinted`.
    private static let emptyStubs = Data("\"stubs\" : [\n\n  ]".utf8)

    /// Writes `file` to `url` (created or truncated), followed by a line feed.
    /// - Returns: The size and `ContentHash` of the bytes written (`CompactIndexFile.source(of:)` of the file).
    /// - Throws: The encoder's or the file system's error.
    @discardableResult
    static func write(_ file: MockSetFile, to url: URL) throws -> CompactIndex.Source {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var frame = file
        frame.stubs = []
        let outline = try encoder.encode(frame)
        guard !file.stubs.isEmpty, let slot = outline.range(of: emptyStubs) else {
            let whole = outline + [0x0A]
            try whole.write(to: url)
            return CompactIndexFile.source(of: whole)
        }
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: url.path)
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        defer { try? handle.close() }
        var hash = ContentHash.Stream()
        var printer = IndexStubPrinter()
        printer.append(raw: outline[..<slot.lowerBound])
        printer.append(raw: "\"stubs\" : [\n".utf8)
        for (position, stub) in file.stubs.enumerated() {
            if position > 0 { printer.append(raw: ",\n".utf8) }
            if !printer.append(stub) {
                appendIndented(try encoder.encode(stub), to: &printer)
            }
            if printer.output.count >= 1 << 20 {
                try flush(&printer, to: handle, hashing: &hash)
            }
        }
        printer.append(raw: "\n  ]".utf8)
        printer.append(raw: outline[slot.upperBound...])
        printer.append(raw: CollectionOfOne(0x0A))
        try flush(&printer, to: handle, hashing: &hash)
        return CompactIndex.Source(indexSize: UInt64(hash.byteCount), indexHash: hash.finish())
    }

    private static func flush(
        _ printer: inout IndexStubPrinter,
        to handle: FileHandle,
        hashing hash: inout ContentHash.Stream
    ) throws {
        printer.output.withUnsafeBytes { hash.update($0) }
        try handle.write(contentsOf: printer.output)
        printer.removeAll()
    }

    /// `json` (printed at depth 0) as it prints at depth 2: four spaces before every line but blank ones. A JSON
    /// string never holds a raw line feed, so every one ends a line.
    private static func appendIndented(_ json: Data, to printer: inout IndexStubPrinter) {
        let indent: [UInt8] = [0x20, 0x20, 0x20, 0x20]
        // Over raw bytes: indexing `Data` byte by byte cost as much as encoding the stub.
        json.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            printer.append(raw: indent)
            var lineStart = 0
            while let newline = bytes[lineStart...].firstIndex(of: 0x0A) {
                printer.append(raw: UnsafeBufferPointer(rebasing: bytes[lineStart...newline]))
                lineStart = newline + 1
                if lineStart < bytes.count, bytes[lineStart] != 0x0A { printer.append(raw: indent) }
            }
            printer.append(raw: UnsafeBufferPointer(rebasing: bytes[lineStart...]))
        }
    }
}
