import OpenCombineShim
import Testing
@testable import Lifeline
import LifelineLog

/// A feed the program keeps in a static variable: its subject, and the subscriptions it keeps.
final class StaticFeed {
    nonisolated(unsafe) static let shared = StaticFeed()
    let values = PassthroughSubject<Int, Never>()
    var cancellables = Set<AnyCancellable>()
}

extension RecordingTests {
    /// What a global variable holds is read by the snapshots that read everything; the per-call
    /// snapshots between them keep it as the last such snapshot found it, until what it leads
    /// to leaves the graph.
    @Suite struct GlobalSnapshotTests {
        @Test func perCallSnapshotsKeepWhatAGlobalHeldUntilItsTargetLeaves() throws {
            let feed = StaticFeed.shared
            var session: RecordingSession?
            let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
                session = Lifeline.current
                session?.snapshots.compareReads()
                feed.values.sink { _ in }.store(in: &feed.cancellables)
                Lifeline.snapshot("kept by the feed")
                feed.values.send(1)
                feed.cancellables = []
            }
            let found = try #require(session?.snapshots.readComparison)
            #expect(found.differences.isEmpty, "\(found.differences.prefix(20).joined(separator: "\n"))")

            let requested = try #require(trace.snapshots.first { $0.label == "kept by the feed" })
            let global = try #require(requested.nodes.first { $0.kind == .global })
            #expect(global.name == "static StaticFeed.shared")
            let sink = try #require(trace.objects.values.first { $0.shortTypeName == "Sink" }?.id)
            #expect(requested.node(sink)?.alive == true)
            // The per-call snapshot after the cancel keeps the variable, unchecked, and no edge to
            // the objects that left the graph.
            let afterCancel = try #require(trace.snapshots.last { $0.reason == .cancel })
            #expect(afterCancel.node(global.id) != nil && !afterCancel.checked(global.id))
            let gone = Set(requested.nodes.map(\.id)).subtracting(afterCancel.nodes.map(\.id))
            #expect(!afterCancel.edges.contains { gone.contains($0.to) || gone.contains($0.from) })
            withExtendedLifetime(feed) {}
        }
    }
}
