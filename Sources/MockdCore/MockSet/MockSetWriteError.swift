/// Why a mock set could not be written to `mocks/<set>/`; when `MockSetWriter` throws one, nothing was changed.
///
/// `description` is the one line printed to the user: `mocks/NAME/: message`.
public typealias MockSetWriteError = LocatedError<MockSetWriteErrorCode>

/// What kind of problem a `MockSetWriteError` is.
public struct MockSetWriteErrorCode: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String { case setExists, writeFailed }
    private let value: Value
    private init(_ value: Value) { self.value = value }

    /// The mock set exists and replacing it was not asked for (`--force`, `--merge`).
    public static let setExists = MockSetWriteErrorCode(.setExists)
    /// The disk refused (full, read-only, permissions); the old set, if any, is untouched.
    public static let writeFailed = MockSetWriteErrorCode(.writeFailed)

    public var description: String { value.rawValue }
}
