import LifelineLog
import Testing
@testable import LifelineAnalysis

/// `leaked-subscription` in a start/stop recording: what the snapshot taken at stop proves
/// about a subscription that had already ended.
@Suite struct LeakedAtStopRuleTests {
    typealias Edge = TraceSnapshot.Edge
    typealias Story = OwnershipGraphTests.Story

    /// The story's sink, cancelled, and the snapshot at stop with `edges` between the objects
    /// still alive (all but `dead`; by default the cancelled conduit is gone). Without `roots`
    /// the view model is an ordinary object rather than one registered with Lifeline.track.
    func leaks(
        _ edges: (Story) -> [Edge], dead: (Story) -> Set<TraceObjectID> = { [$0.conduit] }, roots: Bool = true
    ) -> (story: Story, cancel: UInt64, stop: TraceSnapshot, diagnoses: [Diagnosis]) {
        var story = Story()
        let conduit = story.conduit
        story.script.cancel(conduit)
        let cancel = UInt64(story.script.events.count - 1)
        var nodes = story.nodes(dead: dead(story))
        if !roots {
            nodes = nodes.map { node in
                node.kind == .root ? TraceSnapshot.Node(id: node.id, kind: .object, retainCounts: node.retainCounts, alive: node.alive) : node
            }
        }
        let stop = story.snapshot(1, "stop", reason: .stop, nodes: nodes, edges: edges(story))
        story.script.snapshots = [stop]
        return (story, cancel, stop, LeakedAtStopRule().diagnose(TraceLifecycles(story.script.trace())))
    }

    @Test func aCancelledSinkALoopStillHoldsIsAnError() throws {
        let (story, cancel, stop, diagnoses) = leaks { $0.storeEdges(capture: .strong) }
        let leak = try #require(diagnoses.only)
        #expect(leak.code == "leaked-subscription")
        #expect(leak.severity == .error)
        #expect(leak.objects == [story.sink, story.cancellable])
        // The finding's own event: the last event before the snapshot may be any pipeline's.
        #expect(leak.evidence == [cancel])
        #expect(stop.seq != cancel)
        #expect(leak.message.contains("the subscription was cancelled at @\(cancel)"))
        #expect(leak.message.contains("retain cycle"))
        #expect(leak.message.contains("ViewModel.cancellables → Set<AnyCancellable> → AnyCancellable → Sink.receiveValue (closure) → ViewModel"))
    }

    @Test func aCancelledSinkItsOwnerStillKeepsIsNormal() {
        let (_, _, _, diagnoses) = leaks { $0.storeEdges(capture: .weak) }
        #expect(diagnoses.isEmpty)
    }

    /// That no registered root reaches an object proves nothing: the stack, a global or a
    /// cache the inspection did not reach may hold it on purpose.
    @Test func aCancelledSinkNoRootReachesIsNotGuessedAboutEvenWhenRootsWereRegistered() {
        let (_, _, _, diagnoses) = leaks { story in
            [Edge(from: story.cancellable, to: story.sink, field: "_cancel (closure)", ownership: .strong)]
        }
        #expect(diagnoses.isEmpty)
    }

    @Test func withoutRegisteredRootsAnUnheldObjectIsNotGuessedAbout() {
        let (_, _, _, diagnoses) = leaks({ story in
            [Edge(from: story.cancellable, to: story.sink, field: "_cancel (closure)", ownership: .strong)]
        }, roots: false)
        #expect(diagnoses.isEmpty)
    }

    @Test func objectsDeallocatedByStopAreNotLeaks() {
        let (_, _, _, diagnoses) = leaks({ $0.storeEdges(capture: .strong) }, dead: { [$0.sink, $0.cancellable, $0.conduit] })
        #expect(diagnoses.isEmpty)
    }

    @Test func aSubscriptionStillRunningIsLeftToTheOtherRules() {
        var story = Story()
        story.script.snapshots = [story.snapshot(1, "stop", reason: .stop, nodes: story.nodes(), edges: story.storeEdges(capture: .strong))]
        #expect(LeakedAtStopRule().diagnose(TraceLifecycles(story.script.trace())).isEmpty)
    }
}

extension Array {
    /// The one element of a one-element array.
    var only: Element? { count == 1 ? first : nil }
}
