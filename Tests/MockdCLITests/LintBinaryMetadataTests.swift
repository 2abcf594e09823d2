import Foundation
import MockdTestSupport
import Testing

/// `mockd lint` looks inside images and documents (issue 35): the text a PNG, a JPEG or a PDF carries as metadata, where
/// an e-mail address, a card number or an "NDA" ships with every copy of the set. The files are made here byte by
/// byte (Python's zlib and struct), as a camera, an editor or a PDF writer lays them out.
struct LintBinaryMetadataTests {
    /// Writes `leaky.png` (tEXt, zTXt and iTXt chunks), `clean.png`, `photo.jpg` (EXIF with a sub-IFD, XMP, a comment)
    /// and two PDFs (an Info dictionary as written; one in a compressed object stream with compressed XMP) to argv[1].
    static let generator = #"""
        import struct, sys, zlib
        out = sys.argv[1]

        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

        def png(*extra):
            header = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
            return b"\x89PNG\r\n\x1a\n" + header + b"".join(extra) + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b"")

        xmp = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
               b'<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>olga.petrova@corp.io</dc:creator>'
               b'</rdf:Description></rdf:RDF></x:xmpmeta>')
        open(out + "/leaky.png", "wb").write(png(
            chunk(b"tEXt", b"Comment\x00Contact anna.keller@corp.io for the source"),
            chunk(b"zTXt", b"Description\x00\x00" + zlib.compress(b"NDA draft, paid with 4111 1111 1111 1111")),
            chunk(b"iTXt", b"XML:com.adobe.xmp\x00\x01\x00\x00\x00" + zlib.compress(xmp)),
        ))
        open(out + "/clean.png", "wb").write(png(chunk(b"tEXt", b"Software\x00mockd test image")))

        # JPEG: EXIF (little-endian TIFF: IFD0 with Artist, ImageDescription, XPComment, the EXIF sub-IFD with UserComment),
        # XMP, a comment; then the start of scan and the end.
        def tiff():
            entries0 = []
            data = b""
            base = 8 + 2 + 4 * 12 + 4   # IFD0: count, 4 entries, next pointer
            values = []
            def add(tag, kind, payload, entries):
                nonlocal data
                if len(payload) <= 4:
                    entries.append(struct.pack("<HHI", tag, kind, len(payload)) + payload.ljust(4, b"\x00"))
                else:
                    entries.append(struct.pack("<HHII", tag, kind, len(payload), base + len(data)))
                    data += payload
            add(0x013B, 2, b"anna.keller@corp.io\x00", entries0)
            add(0x010E, 2, b"Internal use only\x00", entries0)
            add(0x9C9C, 1, "card 5555 5555 5555 4444\x00".encode("utf-16-le"), entries0)
            exif_offset_placeholder = len(entries0)
            entries0.append(None)
            sub = []
            add(0x9286, 7, b"ASCII\x00\x00\x00+4915123456789", sub)
            sub_offset = base + len(data)
            sub_ifd = struct.pack("<H", len(sub)) + b"".join(sub) + struct.pack("<I", 0)
            entries0[exif_offset_placeholder] = struct.pack("<HHII", 0x8769, 4, 1, sub_offset)
            ifd0 = struct.pack("<H", len(entries0)) + b"".join(entries0) + struct.pack("<I", 0)
            return b"II*\x00" + struct.pack("<I", 8) + ifd0 + data + sub_ifd

        def segment(marker, payload):
            return b"\xff" + bytes([marker]) + struct.pack(">H", len(payload) + 2) + payload

        jpeg = (b"\xff\xd8" + segment(0xE1, b"Exif\x00\x00" + tiff())
                + segment(0xE1, b"http://ns.adobe.com/xap/1.0/\x00" + xmp)
                + segment(0xFE, b"NDA - do not distribute")
                + segment(0xDA, b"\x01\x01\x00\x00\x3f\x00") + b"\x00\x00\xff\xd9")
        open(out + "/photo.jpg", "wb").write(jpeg)

        title = "Card 4111111111111111".encode("utf-16-be").hex().upper()
        plain = ("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n"
                 "3 0 obj\n<< /Author (Anna Keller \\(anna.keller@corp.io\\)) /Title <FEFF" + title + "> /Keywords (NDA) "
                 "/Producer (mockd test) >>\nendobj\ntrailer\n<< /Root 1 0 R /Info 3 0 R >>\n%%EOF\n")
        open(out + "/brochure.pdf", "wb").write(plain.encode("latin-1"))

        objects = zlib.compress(b"5 0 << /Author (olga.petrova@corp.io) /Subject (Confidential) >>")
        metadata = zlib.compress(xmp.replace(b"olga.petrova@corp.io", b"ben.ng@corp.io"))
        compressed = (b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n4 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length "
                      + str(len(objects)).encode() + b" >>\nstream\n" + objects + b"\nendstream\nendobj\n"
                      + b"6 0 obj\n<< /Type /Metadata /Subtype /XML /Filter /FlateDecode /Length " + str(len(metadata)).encode()
                      + b" >>\nstream\n" + metadata + b"\nendstream\nendobj\ntrailer\n<< /Root 1 0 R /Info 5 0 R >>\n%%EOF\n")
        open(out + "/report.pdf", "wb").write(compressed)
        """#

    @Test func lintFindsSecretsInPNGTextChunksJPEGMetadataAndPDFMetadata() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let bodies = root.appendingPathComponent("mocks/media/bodies")
        try FileManager.default.createDirectory(at: bodies, withIntermediateDirectories: true)
        let generated = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", Self.generator, bodies.path]
        )
        try #require(generated.status == 0, "\(generated.stderr)")
        let stubs = [
            ("leaky.png", "image/png"), ("clean.png", "image/png"), ("photo.jpg", "image/jpeg"),
            ("brochure.pdf", "application/pdf"), ("report.pdf", "application/pdf"),
        ].enumerated().map {
            #"{"id": "s\#($0.offset)", "request": {"method": "GET", "path": "/\#($0.element.0)"}, "responses": [{"headers": ["Content-Type: \#($0.element.1)"], "bodyFile": "bodies/\#($0.element.0)"}]}"#
        }
        try Data(#"{"version": 1, "stubs": [\#(stubs.joined(separator: ", "))]}"#.utf8)
            .write(to: root.appendingPathComponent("mocks/media/index.json"))
        #expect(try ProcessRunner.mockd(["validate", "--set", "media", "--root", root.path]).status == 0)

        let lint = try ProcessRunner.mockd(["lint", "media", "--root", root.path])
        #expect(lint.status == 1)
        #expect(
            lint.stdout.split(separator: "\n").map(String.init) == [
                "mocks/media/bodies/brochure.pdf: PDF /Author at byte 129: e-mail address",
                "mocks/media/bodies/brochure.pdf: PDF /Title at byte 174: card number",
                "mocks/media/bodies/brochure.pdf: PDF /Keywords at byte 275: confidentiality marker 'NDA'",
                "mocks/media/bodies/leaky.png: PNG tEXt Comment: e-mail address",
                "mocks/media/bodies/leaky.png: PNG zTXt Description: card number",
                "mocks/media/bodies/leaky.png: PNG zTXt Description: confidentiality marker 'NDA'",
                "mocks/media/bodies/leaky.png: PNG iTXt XML:com.adobe.xmp: e-mail address",
                "mocks/media/bodies/photo.jpg: JPEG EXIF Artist: e-mail address",
                "mocks/media/bodies/photo.jpg: JPEG EXIF ImageDescription: confidentiality marker 'Internal use only'",
                "mocks/media/bodies/photo.jpg: JPEG EXIF XPComment: card number",
                "mocks/media/bodies/photo.jpg: JPEG EXIF UserComment: phone number",
                "mocks/media/bodies/photo.jpg: JPEG XMP: e-mail address",
                "mocks/media/bodies/photo.jpg: JPEG comment: confidentiality marker 'NDA'",
                "mocks/media/bodies/report.pdf: PDF object stream 1, /Author at byte 15: e-mail address",
                "mocks/media/bodies/report.pdf: PDF object stream 1, /Subject at byte 47: confidentiality marker 'Confidential'",
                "mocks/media/bodies/report.pdf: PDF XMP metadata: e-mail address",
            ],
            "\(lint.stdout)"
        )
        #expect(lint.stderr.hasPrefix("mockd lint: mocks/media: 16 findings;"))

        // Cut at every length, the files are read as far as they go: never a crash, never a finding made up.
        for name in ["leaky.png", "photo.jpg", "report.pdf"] {
            let whole = try Data(contentsOf: bodies.appendingPathComponent(name))
            for length in stride(from: 0, to: whole.count, by: max(1, whole.count / 23)) {
                try whole.prefix(length).write(to: bodies.appendingPathComponent(name))
                let cut = try ProcessRunner.mockd(["lint", "media", "--root", root.path])
                #expect(cut.status == 1 || cut.status == 0, "\(name) cut at \(length): \(cut.stderr)")
            }
            try whole.write(to: bodies.appendingPathComponent(name))
        }
        // The bundled sets' images (the operator's avatar) lint clean.
        #expect(try ProcessRunner.mockd(["lint", "chat", "--root", Paths.packageRoot.path]).status == 0)
    }
}
