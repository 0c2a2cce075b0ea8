import LifelineLog
import Testing
@testable import LifelineAnalysis

/// What `retain-cycle` says held a loop from outside: a screen owns the view model of
/// ``OwnershipGraphTests/Story``, whose sink captures the model strongly.
@Suite struct LoopHoldersTests {
    typealias Edge = TraceSnapshot.Edge
    typealias Node = TraceSnapshot.Node
    typealias Story = OwnershipGraphTests.Story

    /// The story's objects, with a screen; the view model's strong count is `modelCount`.
    private func nodes(_ story: Story, screen: TraceObjectID, screenAlive: Bool = true, modelCount: Int) -> [Node] {
        story.nodes().map { node in
            guard node.id == story.viewModel else { return node }
            return Node(id: node.id, kind: .object, retainCounts: .init(strong: modelCount, weak: 0, unowned: 0), alive: true)
        } + [Node(id: screen, kind: .object, retainCounts: screenAlive ? .init(strong: 1, weak: 0, unowned: 0) : nil, alive: screenAlive)]
    }

    private func loopEdges(_ story: Story, screen: TraceObjectID, owned: Bool) -> [Edge] {
        story.conduitEdges + story.storeEdges(capture: .strong)
            + (owned ? [Edge(from: screen, to: story.viewModel, field: "model", ownership: .strong)] : [])
    }

    @Test func anOwnerThatStillHoldsTheLoopIsNamed() throws {
        var story = Story()
        let screen = story.script.object("Screen", .object)
        let stop = story.snapshot(1, "stop", reason: .stop, nodes: nodes(story, screen: screen, modelCount: 2),
                                  edges: loopEdges(story, screen: screen, owned: true))
        let cycle = try #require(story.cycles([stop]).first)
        #expect(cycle.message.contains("Screen still holds ViewModel from outside the loop (Screen.model → ViewModel), so the "
            + "subscription is still in reach; when it lets go, the loop keeps them alive."), "\(cycle.message)")
        // Nothing is leaked yet: the owner may still cancel on teardown.
        #expect(cycle.severity == .warning)
    }

    /// The screen holds the model in the first snapshot and not in the second; the sink takes
    /// two values after that, which the finding cites.
    @Test func aLoopItsOwnerLetGoOfSaysSinceWhenAndCitesTheValuesAfter() throws {
        var story = Story()
        let screen = story.script.object("Screen", .object)
        let owned = story.snapshot(1, "owned", nodes: nodes(story, screen: screen, modelCount: 2),
                                   edges: loopEdges(story, screen: screen, owned: true))
        story.script.value(story.sink)
        let free = story.snapshot(2, "closed", nodes: nodes(story, screen: screen, screenAlive: false, modelCount: 1),
                                  edges: loopEdges(story, screen: screen, owned: false))
        story.script.value(story.sink)
        story.script.value(story.sink)
        let stop = story.snapshot(3, "stop", reason: .stop, nodes: nodes(story, screen: screen, screenAlive: false, modelCount: 1),
                                  edges: loopEdges(story, screen: screen, owned: false))
        let cycle = try #require(story.cycles([owned, free, stop]).first)
        let values = story.script.events.filter { if case .value = $0.kind, $0.phase == .begin { true } else { false } }.map(\.seq)
        #expect(values.count == 3 && values[0] < free.seq && values[1] > free.seq)
        #expect(cycle.message.contains(
            "Screen \(screen) held ViewModel \(story.viewModel) (Screen.model) until snapshot 1 (after @\(owned.seq)), and no longer in "
                + "snapshot 2 (after @\(free.seq)): from then on only the loop and Combine's own objects held them (the runtime counted "
                + "no other strong reference), yet the subscription delivered 2 more values (@\(values[1]), @\(values[2])). "
                + "They outlived what owned them"), "\(cycle.message)")
        #expect(cycle.evidence.suffix(2) == values.suffix(2))
    }

    /// A reference the runtime counts and the snapshot does not draw (the stack, a global)
    /// could be an owner: the loop is not proven leaked, and the finding says what is known.
    @Test func aReferenceTheSnapshotDoesNotDrawLeavesWhatHeldTheLoopUnsaid() throws {
        var story = Story()
        let screen = story.script.object("Screen", .object)
        let stop = story.snapshot(1, "stop", reason: .stop, nodes: nodes(story, screen: screen, screenAlive: false, modelCount: 2),
                                  edges: loopEdges(story, screen: screen, owned: false))
        let cycle = try #require(story.cycles([stop]).first)
        #expect(cycle.message.hasSuffix("(snapshot 1 \"stop\", after event @\(stop.seq), the last snapshot). Something the snapshot "
            + "does not draw (the stack, a global, a Task) still holds them, so the subscription is still in reach; when it lets "
            + "go, the loop keeps them alive."), "\(cycle.message)")
        #expect(cycle.severity == .warning)

        let counted = story.snapshot(1, "stop", reason: .stop, nodes: nodes(story, screen: screen, screenAlive: false, modelCount: 1),
                                     edges: loopEdges(story, screen: screen, owned: false))
        let alone = try #require(story.cycles([counted]).first)
        #expect(alone.message.hasSuffix("In that snapshot only the loop and Combine's own objects held them (the runtime counted no "
            + "other strong reference). Nothing in the program can cancel the subscription any more."), "\(alone.message)")
    }
}
