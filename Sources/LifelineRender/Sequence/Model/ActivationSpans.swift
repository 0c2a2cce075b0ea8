/// Which row of a model returns each call, paired the way the SVG closes activations: a
/// return closes the innermost activation its own thread opened on the callee, or the
/// innermost one when none is its thread's (``SequenceStep/Content/call(caller:callee:kind:depth:)``).
struct ActivationSpans {
    /// For each row that is a call, the row of its return, or the number of rows for a call
    /// that never returns (its activation runs to the end); -1 for every other row.
    let end: [Int]
    /// How many calls are running before each row, and after the last (one more entry than
    /// rows).
    let openCount: [Int]

    /// Pairs the calls and returns of `steps`, drawn on `laneCount` lanes.
    init(_ steps: [SequenceStep], laneCount: Int) {
        var end = Array(repeating: -1, count: steps.count)
        var openCount = [0]
        openCount.reserveCapacity(steps.count + 1)
        // The open calls of each lane, innermost last, with the thread that made each.
        var open: [[(row: Int, thread: UInt64?)]] = Array(repeating: [], count: laneCount)
        var running = 0
        for (row, step) in steps.enumerated() {
            switch step.content {
            case .call(_, let callee, _, _) where open.indices.contains(callee):
                end[row] = steps.count
                open[callee].append((row, step.thread))
                running += 1
            case .callReturn(_, let callee, _, _, _) where open.indices.contains(callee):
                if let index = open[callee].lastIndex(where: { $0.thread == step.thread }) ?? open[callee].indices.last {
                    end[open[callee].remove(at: index).row] = row
                    running -= 1
                }
            default:
                break
            }
            openCount.append(running)
        }
        self.end = end
        self.openCount = openCount
    }

    /// The rows of the calls still running before `row`, in the order they were made.
    func openCalls(before row: Int) -> [Int] {
        guard openCount[row] > 0 else { return [] }
        return (0..<row).filter { end[$0] >= row }
    }
}
