import Foundation
import MockdControl

/// `/__mockd/record` routes: the recording of `mockd record` or capture-on-miss `--record-misses`.
extension ControlAPI {
    /// `GET /__mockd/record`, with the exchanges the crash spool could not keep (a full disk: they are in memory
    /// only until a flush) and the last reason; 404 when not recording.
    func recordStatus(_ call: Call, _: NoBody) throws -> RecordStatus {
        guard let recorder = engine.recorder else { throw notRecording }
        let counts = recorder.counts
        let spool = recorder.spoolFailures
        return RecordStatus(
            set: recorder.set,
            har: recorder.harDisplay,
            upstream: recorder.upstream,
            entries: counts.entries,
            failed: counts.failed,
            spoolFailed: spool.count,
            spoolError: spool.lastError
        )
    }

    /// `POST /__mockd/record/flush`: writes the HAR and compiles the set now (recording goes on); 500 when the disk
    /// refuses. Runs on the calling worker thread: it takes as long as an `import-har` of the recording.
    func flushRecording(_ call: Call, _: NoBody) throws -> RecordFlush {
        guard let recorder = engine.recorder else { throw notRecording }
        do {
            let result = try recorder.flush()
            recorder.announce(result)
            return RecordFlush(
                set: result.set,
                har: result.har,
                entries: result.entries,
                failed: result.failed,
                written: result.setWritten,
                report: result.report
            )
        } catch {
            throw Failure(.flushFailed, "\(error)")
        }
    }

    private var notRecording: Failure {
        Failure(
            .notRecording,
            "nothing is being recorded: start mockd record, or serve with --on-miss proxy --record-misses"
        )
    }
}
