/// A min-heap of items ordered by deadline, ties in insertion order; for the timer threads.
struct DeadlineHeap<Item> {
    private var entries: [(deadline: UInt64, sequence: UInt64, item: Item)] = []
    private var sequence: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }

    /// The earliest deadline (uptime ns), if any.
    var nextDeadline: UInt64? { entries.first?.deadline }

    mutating func removeAll() {
        entries.removeAll()
    }

    mutating func push(_ item: Item, deadline: UInt64) {
        sequence += 1
        entries.append((deadline, sequence, item))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(child, parent) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest item when its deadline is at or before `now`.
    mutating func popDue(now: UInt64) -> Item? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        entries.swapAt(0, entries.count - 1)
        let top = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, precedes(left, smallest) { smallest = left }
            if right < entries.count, precedes(right, smallest) { smallest = right }
            if smallest == parent { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return top.item
    }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        entries[a].deadline != entries[b].deadline
            ? entries[a].deadline < entries[b].deadline : entries[a].sequence < entries[b].sequence
    }
}
