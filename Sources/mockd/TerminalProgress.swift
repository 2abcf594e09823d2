import Foundation
import MockdCore
import MockdPlatform

/// Redraws `ImportProgress` lines in place on stderr (at most 10 per second).
final class TerminalProgress {
    private let fileName: String
    /// `mocks/<set>/`, named once the file is read.
    private let destination: String
    private var throttle: ImportProgress
    private var drawn = false

    init(fileName: String, destination: String) {
        self.fileName = fileName
        self.destination = destination
        throttle = ImportProgress(start: ProcessInfo.processInfo.systemUptime)
    }

    func update(_ progress: HARImportPipeline.Progress) {
        switch progress {
        case .reading(let reading):
            let now = ProcessInfo.processInfo.systemUptime
            guard throttle.shouldDraw(at: now) else { return }
            show(ImportProgress.line(fileName: fileName, progress: reading, seconds: throttle.elapsed(at: now)))
        case .compiled(let entries):
            show("read \(ImportProgress.grouped(entries)) entries; writing \(destination) …")
        }
    }

    /// Replaces the line with `text`.
    func show(_ text: String) {
        write("\r" + text + "\u{1B}[K")
        drawn = true
    }

    /// Erases the line, so that the report or an error starts on a clean line.
    func clear() {
        guard drawn else { return }
        write("\r\u{1B}[K")
        drawn = false
    }

    private func write(_ text: String) {
        try? FileDescriptor.standardError.writeAll(Data(text.utf8))
    }
}
