import LifelineLog
import Testing
@testable import LifelineAnalysis

/// Reference counts against what the graph draws: the runtime's own weak and unowned count
/// and the recorder's weak references are left out, and the rest is told apart from the
/// drawn references.
@Suite struct ReferenceTallyTests {
    typealias Story = OwnershipGraphTests.Story

    /// The story's graph with the sink capturing the view model weakly; `counts` replace the
    /// story's counts (strong 1) of the objects they name, and the objects in `dead` died.
    func graph(_ counts: (Story) -> [TraceObjectID: TraceSnapshot.RetainCounts?], dead: (Story) -> Set<TraceObjectID> = { _ in [] })
        -> (Story, OwnershipGraph) {
        var story = Story()
        let replaced = counts(story)
        let nodes = story.nodes(dead: dead(story)).map { node in
            guard let counts = replaced[node.id] else { return node }
            return TraceSnapshot.Node(id: node.id, kind: node.kind, name: node.name, retainCounts: counts, alive: node.alive)
        }
        let snapshot = story.snapshot(1, "now", nodes: nodes, edges: story.conduitEdges + story.storeEdges(capture: .weak))
        story.script.snapshots = [snapshot]
        return (story, OwnershipGraph(snapshot: snapshot, trace: story.script.trace()))
    }

    @Test func weakCountsLeaveOutTheRuntimesAndTheRecordersOwn() throws {
        // A tracked root: the registry and the root list each hold a weak reference.
        let (story, graph) = graph { [$0.viewModel: .init(strong: 3, weak: 4, unowned: 1, recorderWeak: 2)] }
        let tallies = try #require(graph.tallies(of: story.viewModel))
        #expect(tallies == [
            ReferenceTally(ownership: .strong, counted: 3, drawn: 0),
            ReferenceTally(ownership: .weak, counted: 1, drawn: 1),
        ])
        #expect(tallies.map(\.summary) == ["strong 3 (0 drawn)", "weak 1 (1 drawn)"])
        #expect(tallies[0].undrawn == 3)
    }

    @Test func weakAndUnownedAreShownOnlyWhenThereAreSomeOrSomeAreDrawn() throws {
        let (story, graph) = graph {
            [$0.viewModel: .init(strong: 1, weak: 3, unowned: 3, recorderWeak: 2),
             $0.cancellable: .init(strong: 2, weak: 2, unowned: 1, recorderWeak: 1)]
        }
        #expect(graph.tallies(of: story.viewModel)?.map(\.summary) == ["strong 1 (0 drawn)", "weak 0 (1 drawn)", "unowned 2 (0 drawn)"])
        #expect(graph.tallies(of: story.cancellable)?.map(\.summary) == ["strong 2 (1 drawn)"])
    }

    @Test func theCountSentenceSaysWhereTheUndrawnReferencesCanBe() {
        let (story, graph) = graph {
            [$0.viewModel: .init(strong: 3, weak: 4, unowned: 1, recorderWeak: 2),
             $0.cancellable: .init(strong: 3, weak: 1, unowned: 1),
             $0.sink: .init(strong: 2, weak: 2, unowned: 1, recorderWeak: 1)]
        }
        #expect(graph.countSentence(of: story.viewModel, subject: "ViewModel #4") == """
            The runtime counts 3 strong references to ViewModel #4 and the graph draws none: they are held from the stack, \
            a global, a compiler temporary or an object the inspection did not reach. It also has 1 weak reference (1 drawn).
            """)
        #expect(graph.countSentence(of: story.cancellable, subject: "AnyCancellable #6") == """
            The runtime counts 3 strong references to AnyCancellable #6 and the graph draws 1: the other 2 are held from \
            the stack, a global, a compiler temporary or an object the inspection did not reach.
            """)
        #expect(graph.countSentence(of: story.sink, subject: "Sink #3")
            == "The runtime counts 2 strong references to Sink #3, and the graph draws them all.")
        #expect(graph.countSentence(of: story.set, subject: "Set #5")
            == "The runtime counts 1 strong reference to Set #5, and the graph draws it.")
    }

    @Test func unknownCountsAndDeadObjectsAreSaidAsSuch() {
        let (story, graph) = graph({ [$0.viewModel: TraceSnapshot.RetainCounts?.none] }, dead: { [$0.cancellable] })
        #expect(graph.tallies(of: story.viewModel) == nil)
        #expect(graph.countSentence(of: story.viewModel, subject: "ViewModel #4")
            == "The snapshot could not read ViewModel #4's reference counts.")
        #expect(graph.tallies(of: story.cancellable) == nil)
        #expect(graph.countSentence(of: story.cancellable, subject: "AnyCancellable #6") == nil)
    }
}
