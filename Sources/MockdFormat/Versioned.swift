extension KeyedDecodingContainer {
    /// The file's format `version`: 1 when absent.
    /// - Throws: `DecodingError.dataCorrupted` at `key` when the version is newer than `newest`, the newest this
    ///   mockd reads ("version 2 is newer than this mockd supports (up to 1)").
    public func decodeVersion(upTo newest: Int, forKey key: Key) throws -> Int {
        let version = try decodeIfPresent(Int.self, forKey: key) ?? 1
        guard version <= newest else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: self,
                debugDescription: "version \(version) is newer than this mockd supports (up to \(newest))"
            )
        }
        return version
    }
}
