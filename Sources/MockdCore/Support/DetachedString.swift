extension String {
    /// The same text in storage of its own (small strings stay inline), so that keeping it does not keep the
    /// string it was sliced or decoded from.
    ///
    /// Stubs keep a few strings of the decoded index (id, path, body file); sharing the decoded storage pinned
    /// pages of the released index in memory, 60 MiB of malloc's heap at 100,000 stubs that `malloc_trim` could
    /// not give back.
    var detached: String {
        let count = utf8.count
        return String(unsafeUninitializedCapacity: count) { buffer in
            _ = buffer.initialize(fromContentsOf: utf8)
            return count
        }
    }
}
