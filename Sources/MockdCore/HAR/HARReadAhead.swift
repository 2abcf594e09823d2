import Foundation

/// Runs `HARStreamReader.read` on a thread of its own and hands its entries and progress reports to the calling
/// thread, in order, through a small bounded buffer: parsing the JSON of the next entries and compiling the ones
/// before then use two cores. On one core they took about as long as each other (an import's two largest costs).
///
/// Memory stays bounded: entries travel in batches of at most one chunk of the file (a batch ends at each progress
/// report, which the reader makes after every chunk) and at most `queuedBatches` wait while the caller works.
enum HARReadAhead {
    /// Batches waiting for the caller; the reader blocks when this many are queued.
    static let queuedBatches = 2
    /// Entries per batch at most, so a chunk of many small entries still arrives in pieces.
    static let batchSize = 256

    /// What `HARStreamReader.read` returns or throws, with `entry` and `progress` called on the calling thread in
    /// the order the reader made them.
    /// - Parameters:
    ///   - entry: Receives each entry; entries before an error may have been handed on (as with the reader itself).
    ///   - progress: Called after each chunk, between the entries read before and after it.
    /// - Throws: What the reader throws.
    static func read(
        _ reader: HARStreamReader,
        contentsOf url: URL,
        displayName: String,
        progress: ((HARStreamReader.Progress) -> Void)?,
        entry: (HAREntry) -> Void
    ) throws -> HARLogInfo {
        let channel = Channel(capacity: queuedBatches)
        let wantsProgress = progress != nil
        let thread = Thread {
            var batch: [HAREntry] = []
            let outcome = Result {
                try reader.read(
                    contentsOf: url,
                    displayName: displayName,
                    progress: { report in
                        channel.put(.entries(batch), then: wantsProgress ? report : nil)
                        batch = []
                    },
                    entry: { item in
                        batch.append(item)
                        if batch.count >= batchSize {
                            channel.put(.entries(batch), then: nil)
                            batch = []
                        }
                    }
                )
            }
            channel.finish(remaining: batch, outcome)
        }
        // The reader's JSON parser recurses per nesting level: the same room as the main thread's default stack.
        thread.stackSize = 8 << 20
        thread.start()
        while true {
            switch channel.take() {
            case .entries(let items):
                for item in items { entry(item) }
            case .progress(let report):
                progress?(report)
            case .finished(let outcome):
                return try outcome.get()
            }
        }
    }

    private enum Item: Sendable {
        case entries([HAREntry])
        case progress(HARStreamReader.Progress)
        case finished(Result<HARLogInfo, any Error>)
    }

    /// A bounded first-in first-out queue between the reading thread and the caller.
    private final class Channel: @unchecked Sendable {
        private let condition = NSCondition()
        private var items: [Item] = []
        private let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
        }

        /// Queues a batch (an empty one is dropped) and then a progress report, waiting while the queue is full.
        func put(_ batch: Item, then report: HARStreamReader.Progress?) {
            condition.lock()
            defer { condition.unlock() }
            if case .entries(let entries) = batch, !entries.isEmpty {
                while items.count >= capacity { condition.wait() }
                append(batch)
            }
            if let report { append(.progress(report)) }
        }

        /// Queues the last batch and the reader's outcome; never waits, so the reading thread always ends.
        func finish(remaining batch: [HAREntry], _ outcome: Result<HARLogInfo, any Error>) {
            condition.lock()
            defer { condition.unlock() }
            if !batch.isEmpty { append(.entries(batch)) }
            append(.finished(outcome))
        }

        /// The next item, waiting for one.
        func take() -> Item {
            condition.lock()
            defer { condition.unlock() }
            while items.isEmpty { condition.wait() }
            // A few items at most: removing the first is cheap, and the caller's batch is no longer held here.
            let item = items.removeFirst()
            condition.broadcast()
            return item
        }

        private func append(_ item: Item) {
            items.append(item)
            condition.broadcast()
        }
    }
}
