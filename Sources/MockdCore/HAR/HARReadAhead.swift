import Foundation

/// Runs `HARStreamReader` on threads of their own and hands its entries and progress reports to the calling thread,
/// in order, through small bounded buffers: one thread scans the file for where each entry starts and ends, others
/// parse the entries' JSON, and the caller compiles them. Parsing and compiling are an import's two largest costs,
/// about equal; with the scan apart from the parse, two cores are busy all through (the scan and the parse on one
/// thread were the longer of two stages, leaving the caller's core waiting).
///
/// Memory stays bounded: entries travel in batches of at most one chunk of the file (a batch ends at each progress
/// report, which the reader makes after every chunk), and at most `queuedBatches` wait at each stage.
enum HARReadAhead {
    /// Batches waiting at each stage; a stage blocks when this many are queued for the next.
    static let queuedBatches = 2
    /// Entries per batch at most, so a chunk of many small entries still arrives in pieces.
    static let batchSize = 256
    /// Threads parsing entries: the processors beside the caller's, at most 3 (the caller's compiling is then the
    /// longest stage).
    static var parserCount: Int { min(max(ProcessInfo.processInfo.activeProcessorCount - 1, 1), 3) }

    /// What `HARStreamReader.read` returns or throws, with `entry` and `progress` called on the calling thread in
    /// the order the reader made them.
    /// - Parameters:
    ///   - parsers: Threads parsing entries (batches go to them in turn and come back in the same turn).
    ///   - entry: Receives each entry; entries before an error may have been handed on (as with the reader itself).
    ///   - progress: Called after each chunk, between the entries read before and after it.
    /// - Throws: What the reader throws; of several errors, the first in the file's order.
    static func read(
        _ reader: HARStreamReader,
        contentsOf url: URL,
        displayName: String,
        parsers: Int = parserCount,
        batchSize: Int = batchSize,
        progress: ((HARStreamReader.Progress) -> Void)?,
        entry: (HAREntry) -> Void
    ) throws -> HARLogInfo {
        let parsers = max(parsers, 1)
        let scanned = (0..<parsers).map { _ in Channel<Scanned>(capacity: queuedBatches) }
        let parsed = (0..<parsers).map { _ in Channel<Parsed>(capacity: queuedBatches) }
        // However the caller leaves (done, or at an error), the other threads stop waiting and end.
        defer {
            for channel in scanned { channel.cancel() }
            for channel in parsed { channel.cancel() }
        }
        let wantsProgress = progress != nil
        start {
            var turn = 0
            func send(_ item: Scanned) {
                scanned[turn % parsers].put(item)
                turn += 1
            }
            var batch: [HARPendingEntry] = []
            let outcome = Result {
                try reader.readPending(
                    contentsOf: url,
                    displayName: displayName,
                    progress: { report in
                        if !batch.isEmpty { send(.entries(batch)) }
                        batch = []
                        if wantsProgress { send(.progress(report)) }
                    },
                    pending: { item in
                        // The caller has left (an earlier entry failed to parse): the rest is not read. Asked once
                        // a batch, not for every entry.
                        if batch.isEmpty, scanned[0].isCancelled { throw CancellationError() }
                        batch.append(item)
                        if batch.count >= batchSize {
                            send(.entries(batch))
                            batch = []
                        }
                    }
                )
            }
            if !batch.isEmpty { send(.entries(batch)) }
            send(.finished(outcome))
        }
        for index in 0..<parsers {
            let input = scanned[index]
            let output = parsed[index]
            start {
                while let item = input.take() {
                    switch item {
                    case .entries(let pending):
                        var entries: [HAREntry] = []
                        entries.reserveCapacity(pending.count)
                        var failure: (any Error)?
                        for one in pending {
                            do {
                                entries.append(try one.entry())
                            } catch {
                                failure = error
                                break
                            }
                        }
                        output.put(.entries(entries, failure: failure))
                    case .progress(let report):
                        output.put(.progress(report))
                    case .finished(let outcome):
                        output.put(.finished(outcome))
                    }
                }
            }
        }
        var turn = 0
        while true {
            guard let item = parsed[turn % parsers].take() else { throw CancellationError() }
            turn += 1
            switch item {
            case .entries(let items, let failure):
                for item in items { entry(item) }
                if let failure { throw failure }
            case .progress(let report):
                progress?(report)
            case .finished(let outcome):
                return try outcome.get()
            }
        }
    }

    private static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        // The JSON parser recurses per nesting level: the same room as the main thread's default stack.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// From the scanning thread to a parsing one.
    private enum Scanned: Sendable {
        case entries([HARPendingEntry])
        case progress(HARStreamReader.Progress)
        case finished(Result<HARLogInfo, any Error>)
    }

    /// From a parsing thread to the caller: the entries of a batch up to the first that failed to parse, if one did.
    private enum Parsed: Sendable {
        case entries([HAREntry], failure: (any Error)?)
        case progress(HARStreamReader.Progress)
        case finished(Result<HARLogInfo, any Error>)
    }

    /// A bounded first-in first-out queue between two threads, which either side can cancel.
    private final class Channel<Item: Sendable>: @unchecked Sendable {
        private let condition = NSCondition()
        private var items: [Item] = []
        private let capacity: Int
        private var cancelled = false

        init(capacity: Int) {
            self.capacity = capacity
        }

        var isCancelled: Bool {
            condition.lock()
            defer { condition.unlock() }
            return cancelled
        }

        /// Queues `item`, waiting while the queue is full; drops it once the channel is cancelled.
        func put(_ item: Item) {
            condition.lock()
            defer { condition.unlock() }
            while items.count >= capacity, !cancelled { condition.wait() }
            guard !cancelled else { return }
            items.append(item)
            condition.broadcast()
        }

        /// The next item, waiting for one; `nil` once the channel is cancelled.
        func take() -> Item? {
            condition.lock()
            defer { condition.unlock() }
            while items.isEmpty, !cancelled { condition.wait() }
            guard !cancelled else { return nil }
            // A few items at most: removing the first is cheap, and the taker's batch is no longer held here.
            let item = items.removeFirst()
            condition.broadcast()
            return item
        }

        /// Wakes both sides for good: waiting `put`s drop their items and `take`s return `nil`.
        func cancel() {
            condition.lock()
            defer { condition.unlock() }
            cancelled = true
            items.removeAll()
            condition.broadcast()
        }
    }
}
