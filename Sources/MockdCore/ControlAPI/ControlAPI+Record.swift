import Foundation

/// `/__mockd/record` routes: the recording of `mockd record` or capture-on-miss `--record-misses`.
extension ControlAPI {
    /// `GET /__mockd/record`: `{"set", "har", "upstream", "entries", "failed", "spoolFailed", "spoolError"}` — the
    /// exchanges the crash spool could not keep (a full disk: they are in memory only until a flush) and the last
    /// reason (`null` when none failed); 404 when not recording.
    func recordStatus(_ call: Call) -> MockResponse {
        guard let recorder = engine.recorder else { return notRecording() }
        let counts = recorder.counts
        let spool = recorder.spoolFailures
        return ControlAPI.json(
            200,
            [
                "set": recorder.set, "har": recorder.harDisplay, "upstream": recorder.upstream,
                "entries": counts.entries, "failed": counts.failed, "spoolFailed": spool.count,
                "spoolError": spool.lastError ?? NSNull(),
            ]
        )
    }

    /// `POST /__mockd/record/flush`: writes the HAR and compiles the set now (recording goes on); 200 with
    /// `{"set", "har", "entries", "failed", "written", "report"}`, 500 when the disk refuses. Runs on the
    /// calling worker thread: it takes as long as an `import-har` of the recording.
    func flushRecording(_ call: Call) -> MockResponse {
        guard let recorder = engine.recorder else { return notRecording() }
        do {
            let result = try recorder.flush()
            recorder.announce(result)
            return ControlAPI.json(
                200,
                [
                    "set": result.set, "har": result.har, "entries": result.entries, "failed": result.failed,
                    "written": result.setWritten,
                    "report": result.report,
                ]
            )
        } catch {
            return ControlAPI.error(500, "flush_failed", "\(error)")
        }
    }

    private func notRecording() -> MockResponse {
        ControlAPI.error(
            404,
            "not_recording",
            "nothing is being recorded: start mockd record, or serve with --on-miss proxy --record-misses"
        )
    }
}
