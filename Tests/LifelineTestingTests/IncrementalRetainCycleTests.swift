import Foundation
import Lifeline
import LifelineLog
import NewsReaderApp
import PortfolioApp
import Testing
@testable import LifelineAnalysis

/// `retain-cycle` finds the loops of a log's per-call snapshots from what each snapshot changed
/// (``StrongCycleHistory``), so `diagnose` on such a log costs what the snapshots change. On the
/// two realistic apps' per-call logs, where loops are made, broken and made again as pipelines
/// come and go, the loops it holds after every snapshot must be exactly those of the snapshot's
/// whole graph.
@Suite("Retain cycles from what each snapshot changed", .serialized)
struct IncrementalRetainCycleTests {
    @Test func theNewsReadersLoopsAreThoseOfEachWholeSnapshot() throws {
        let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
            let app = NewsReaderApp()
            #expect(app.run(), "the app's queues went quiet")
            app.tearDown()
        }
        try expectTheLoopsOfEachWholeSnapshot(in: trace)
    }

    @Test func thePortfoliosLoopsAreThoseOfEachWholeSnapshot() throws {
        let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
            let app = PortfolioApp()
            #expect(app.run(), "the app's queues went quiet")
            app.tearDown()
        }
        try expectTheLoopsOfEachWholeSnapshot(in: trace)
    }

    private func expectTheLoopsOfEachWholeSnapshot(in trace: Trace) throws {
        #expect(trace.snapshots.filter { !$0.isComplete }.count > 20, "the app took per-call snapshots that did not check everything")
        var history = StrongCycleHistory()
        var changedLoops = 0
        var before = Set<RetainCycle>()
        for snapshot in trace.snapshots {
            history.advance(to: snapshot)
            let whole = OwnershipGraph(snapshot: snapshot, trace: trace)
            let loops = Set(history.cycles)
            #expect(loops == Set(whole.strongCycles), "snapshot \(snapshot.index) \"\(snapshot.label)\"")
            if loops != before { changedLoops += 1 }
            before = loops
        }
        #expect(changedLoops > 10, "the log's loops changed \(changedLoops) times")
    }
}
