/// The recording of `mockd record` or `--record-misses` (`/__mockd/record`).
extension MockdClient {
    /// What is being recorded: the set, the HAR file, the upstream, the counts (`GET /__mockd/record`).
    /// - Throws: `.server(404, "not_recording", …)` when nothing is.
    public func recordStatus() async throws -> RecordStatus {
        try await call(ControlRoutes.recordStatus)
    }

    /// Writes the recording's HAR and compiles its mock set now; recording goes on (`POST /__mockd/record/flush`).
    /// - Throws: `.server(404, "not_recording", …)`, `.server(500, "flush_failed", …)` when the disk refuses.
    @discardableResult
    public func flushRecording() async throws -> RecordFlush {
        try await call(ControlRoutes.flushRecording)
    }
}
