internal import CCompression
public import Foundation

/// One-shot decoders for the content codings a HAR may have recorded without decoding (RFC 9110 §8.4.1):
/// `gzip`/`x-gzip`, `deflate` (zlib, or raw as some servers send it) through zlib, and `br` through the
/// brotli decoder. Both from Debian; never a hand-written codec.
public enum Decompression {
    /// Output beyond this is refused, so a compression bomb in a HAR cannot exhaust memory (256 MiB).
    public static let maximumOutput = 256 << 20

    /// The decoded bytes, or `nil` when `data` is not valid `coding` data (or decodes beyond the limit).
    public static func decode(_ data: Data, coding: String) -> Data? {
        switch coding.lowercased() {
        case "gzip", "x-gzip": return inflate(data, windowBits: 16 + 15)
        case "deflate": return inflate(data, windowBits: 15) ?? inflate(data, windowBits: -15)
        case "br": return brotli(data)
        default: return nil
        }
    }

    /// Whether `data` starts like `coding` data would (gzip magic, zlib header); `br` has no magic number.
    public static func looksEncoded(_ data: Data, coding: String) -> Bool {
        let bytes = Array(data.prefix(2))
        switch coding.lowercased() {
        case "gzip", "x-gzip": return bytes == [0x1F, 0x8B]
        case "deflate":
            return bytes.count == 2 && bytes[0] & 0x0F == 8 && (UInt16(bytes[0]) << 8 | UInt16(bytes[1])) % 31 == 0
        case "br": return !data.isEmpty && String(data: data, encoding: .utf8) == nil
        default: return false
        }
    }

    private static func inflate(_ data: Data, windowBits: Int32) -> Data? {
        guard !data.isEmpty else { return nil }
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = [UInt8](data)
        let inputCount = input.count
        return input.withUnsafeMutableBufferPointer { inputBuffer -> Data? in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputCount)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { chunkBuffer -> Int32 in
                    stream.next_out = chunkBuffer.baseAddress
                    stream.avail_out = uInt(chunkBuffer.count)
                    return CCompression.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                output.append(contentsOf: chunk[0..<produced])
                if output.count > maximumOutput { return nil }
                if status == Z_STREAM_END { return output }
                guard status == Z_OK else { return nil }
                if stream.avail_in == 0 && produced == 0 { return nil }  // truncated input
            }
        }
    }

    private static func brotli(_ data: Data) -> Data? {
        guard !data.isEmpty, let state = BrotliDecoderCreateInstance(nil, nil, nil) else { return nil }
        defer { BrotliDecoderDestroyInstance(state) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let input = [UInt8](data)
        return input.withUnsafeBufferPointer { inputBuffer -> Data? in
            var availableIn = inputBuffer.count
            var nextIn = inputBuffer.baseAddress
            while true {
                var produced = 0
                let result = chunk.withUnsafeMutableBufferPointer { chunkBuffer -> BrotliDecoderResult in
                    var availableOut = chunkBuffer.count
                    var nextOut = chunkBuffer.baseAddress
                    let result = BrotliDecoderDecompressStream(
                        state,
                        &availableIn,
                        &nextIn,
                        &availableOut,
                        &nextOut,
                        nil
                    )
                    produced = chunkBuffer.count - availableOut
                    return result
                }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > maximumOutput { return nil }
                switch result {
                case BROTLI_DECODER_RESULT_SUCCESS: return availableIn == 0 ? output : nil
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                default: return nil  // error, or input ended early
                }
            }
        }
    }
}
