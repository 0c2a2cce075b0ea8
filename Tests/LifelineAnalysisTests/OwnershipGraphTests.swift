import LifelineLog
import Testing
@testable import LifelineAnalysis

/// The ownership graph and `retain-cycle` on hand-built snapshots: a view model that stores
/// the AnyCancellable of a sink whose closure captures it, on a subject.
@Suite struct OwnershipGraphTests {
    typealias Edge = TraceSnapshot.Edge
    typealias Node = TraceSnapshot.Node

    /// A subject, its conduit and a sink, subscribed and requesting, plus a view model that
    /// stores the sink's AnyCancellable in a set.
    struct Story {
        var script = TraceScript()
        let subject: TraceObjectID, conduit: TraceObjectID, sink: TraceObjectID
        let viewModel: TraceObjectID, set: TraceObjectID, cancellable: TraceObjectID

        init() {
            subject = script.object("PassthroughSubject", .publisher)
            conduit = script.object("PassthroughSubject.Conduit", .subscription)
            sink = script.object("Sink", .subscriber)
            viewModel = script.object("ViewModel", .object)
            set = script.object("Set<AnyCancellable>", .object)
            cancellable = script.object("AnyCancellable", .object)
            let (subject, conduit, sink) = (subject, conduit, sink)
            script.subscribe(subject, sink) { script in
                script.receiveSubscription(sink, conduit) { script in script.request(conduit, .unlimited) }
            }
        }

        /// Every object alive, except those in `dead`; those in `heldElsewhere` have one more
        /// strong reference than the others, which no edge draws (the stack, a global).
        func nodes(dead: Set<TraceObjectID> = [], heldElsewhere: Set<TraceObjectID> = []) -> [Node] {
            let kinds: [(TraceObjectID, Node.Kind)] = [
                (subject, .subject), (conduit, .subscription), (sink, .subscriber),
                (viewModel, .root), (set, .collection), (cancellable, .cancellable),
            ]
            return kinds.map { id, kind in
                Node(id: id, kind: kind, name: kind == .root ? "ViewModel" : nil,
                     retainCounts: dead.contains(id) ? nil : .init(strong: heldElsewhere.contains(id) ? 2 : 1, weak: 0, unowned: 0),
                     alive: !dead.contains(id))
            }
        }

        /// OpenCombine's own loop while subscribed: subject ↔ conduit ↔ sink.
        var conduitEdges: [Edge] {
            [
                Edge(from: subject, to: conduit, field: "downstreams.single", ownership: .strong),
                Edge(from: conduit, to: subject, field: "parent", ownership: .strong),
                Edge(from: conduit, to: sink, field: "downstream.subscriber", ownership: .strong),
                Edge(from: sink, to: conduit, field: "status.subscribed.subscription", ownership: .strong),
            ]
        }

        /// The view model's store(in:) chain, and the sink's capture of it with `capture`.
        func storeEdges(capture: TraceSnapshot.Ownership) -> [Edge] {
            [
                Edge(from: viewModel, to: set, field: "cancellables", ownership: .strong),
                Edge(from: set, to: cancellable, field: "[0]", ownership: .strong),
                Edge(from: cancellable, to: sink, field: "_cancel (closure)", ownership: .strong),
                Edge(from: sink, to: viewModel, field: "receiveValue (closure)", ownership: capture),
            ]
        }

        func snapshot(_ index: Int, _ label: String, reason: TraceSnapshot.Reason = .requested, nodes: [Node], edges: [Edge])
            -> TraceSnapshot {
            TraceSnapshot(index: index, seq: UInt64(script.events.count), label: label, reason: reason, nodes: nodes, edges: edges)
        }

        func cycles(_ snapshots: [TraceSnapshot]) -> [Diagnosis] {
            var script = script
            script.snapshots = snapshots
            return TraceAnalyzer().diagnose(script.trace()).filter { $0.code == "retain-cycle" }
        }

        func graph(_ edges: [Edge], dead: Set<TraceObjectID> = []) -> OwnershipGraph {
            var script = script
            let snapshot = snapshot(1, "now", nodes: nodes(dead: dead), edges: edges)
            script.snapshots = [snapshot]
            return OwnershipGraph(snapshot: snapshot, trace: script.trace())
        }
    }

    @Test func aSinkCapturingItsOwnerIsReportedWithTheChainInWords() throws {
        let story = Story()
        let stop = story.snapshot(1, "stop", reason: .stop, nodes: story.nodes(),
                                  edges: story.conduitEdges + story.storeEdges(capture: .strong))
        let cycles = story.cycles([stop])
        let cycle = try #require(cycles.first)
        #expect(cycles.count == 1)
        #expect(cycle.message.hasPrefix(
            "Retain cycle: ViewModel.cancellables → Set<AnyCancellable> → AnyCancellable → Sink.receiveValue (closure) → ViewModel."))
        #expect(cycle.objects == [story.viewModel, story.set, story.cancellable, story.sink])
        #expect(cycle.severity == .error)
        #expect(cycle.evidence == [1, stop.seq])
        #expect(cycle.fix.contains("capture ViewModel weakly in Sink's closure (`[weak self]`)"))
    }

    /// A set stores its elements in an order its hashing picks anew in each process: a loop
    /// through a subject's set of conduits runs through the same conduit in every run.
    @Test func aLoopThroughASetTakesTheSameElementWhateverOrderTheSetStoresThem() throws {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let set = script.object("Set<ConduitBase<Int, Never>>", .object)
        let first = script.object("PassthroughSubject.Conduit", .subscription)
        let second = script.object("PassthroughSubject.Conduit", .subscription)
        func graph(storing order: [TraceObjectID]) -> OwnershipGraph {
            let kinds: [(TraceObjectID, Node.Kind)] = [(subject, .subject), (set, .collection), (first, .subscription), (second, .subscription)]
            let nodes = kinds.map { Node(id: $0.0, kind: $0.1, retainCounts: .init(strong: 1, weak: 0, unowned: 0), alive: true) }
            let edges = [Edge(from: subject, to: set, field: "downstreams.many", ownership: .strong)]
                + order.enumerated().map { Edge(from: set, to: $1, field: "[\($0)]", ownership: .strong) }
                + [first, second].map { Edge(from: $0, to: subject, field: "parent", ownership: .strong) }
            var script = script
            let snapshot = TraceSnapshot(index: 1, seq: 0, label: "now", reason: .requested, nodes: nodes, edges: edges)
            script.snapshots = [snapshot]
            return OwnershipGraph(snapshot: snapshot, trace: script.trace())
        }
        let stored = try #require(graph(storing: [first, second]).strongCycles.first)
        let swapped = try #require(graph(storing: [second, first]).strongCycles.first)
        #expect(stored.chain.map(\.to) == swapped.chain.map(\.to))
        #expect(swapped.chain.map(\.to).contains(first) && !swapped.chain.map(\.to).contains(second), "\(swapped.chain)")
    }

    @Test func aWeakCaptureClosesNoLoop() {
        let story = Story()
        let edges = story.conduitEdges + story.storeEdges(capture: .weak)
        let stop = story.snapshot(1, "stop", reason: .stop, nodes: story.nodes(), edges: edges)
        #expect(story.cycles([stop]).isEmpty)
        #expect(stop.edges.contains { $0.from == story.sink && $0.to == story.viewModel && $0.ownership == .weak })
        #expect(story.graph(edges).strongCycles.map(\.objects) == [[story.subject, story.conduit, story.sink]])
    }

    @Test func openCombinesOwnSubjectConduitLoopIsNotReportedWhileTheProgramReachesIt() {
        let story = Story()
        let stop = story.snapshot(1, "stop", reason: .stop, nodes: story.nodes(heldElsewhere: [story.subject]), edges: story.conduitEdges)
        #expect(story.graph(story.conduitEdges).strongCycles.count == 1)
        #expect(story.cycles([stop]).isEmpty)
    }

    /// The same running loop that nothing outside references, the runtime counting no other
    /// reference: nothing can send to it, complete it or cancel it.
    @Test func aRunningLoopNothingOutsideReferencesIsOutOfReach() throws {
        let story = Story()
        let stop = story.snapshot(1, "stop", reason: .stop, nodes: story.nodes(), edges: story.conduitEdges)
        let cycle = try #require(story.cycles([stop]).first)
        #expect(cycle.severity == .error)
        #expect(cycle.message.hasSuffix("Nothing outside the loop references them (the runtime counted no other reference), so "
            + "nothing can send to, complete or cancel the subscription any more."), "\(cycle.message)")
    }

    /// A per-call snapshot taken on another thread while the sink was being subscribed saw it
    /// as a plain object; the log's handshake shows it is the conduit's subscriber, and the two
    /// holding each other is a running subscription, not the program's loop.
    @Test func aSubscriberASnapshotSawAsAPlainObjectIsStillASubscriber() {
        let story = Story()
        let nodes = story.nodes(heldElsewhere: [story.sink]).map { node in
            node.id == story.sink ? Node(id: node.id, kind: .object, retainCounts: node.retainCounts, alive: true) : node
        }
        let edges = story.conduitEdges.filter { $0.from != story.subject && $0.to != story.subject }
        let stop = story.snapshot(1, "stop", reason: .stop, nodes: nodes, edges: edges)
        #expect(story.graph(edges).strongCycles.count == 1)
        #expect(story.cycles([stop]).isEmpty)
    }

    @Test func aSubjectsSetOfConduitsIsNoRetainCycleWhetherOrNotTheProgramHoldsIt() {
        let story = Story()
        // A subject with several subscribers keeps its conduits in a set.
        let throughSet = [
            Edge(from: story.subject, to: story.set, field: "downstreams.many", ownership: .strong),
            Edge(from: story.set, to: story.conduit, field: "[0]", ownership: .strong),
        ] + story.conduitEdges.filter { $0.from != story.subject }
        let combines = story.snapshot(1, "stop", reason: .stop, nodes: story.nodes(heldElsewhere: [story.subject]), edges: throughSet)
        #expect(story.graph(throughSet).strongCycles.map(\.objects.count) == [4])
        #expect(story.cycles([combines]).isEmpty)

        let shared = throughSet + [Edge(from: story.viewModel, to: story.set, field: "conduits", ownership: .strong)]
        let programs = story.snapshot(1, "stop", reason: .stop, nodes: story.nodes(), edges: shared)
        // A live view model that holds the subject's set holds a running subscription it can
        // still end: no leak is proven.
        #expect(story.graph(shared).strongCycles.map(\.objects.count) == [4])
        #expect(story.cycles([programs]).isEmpty)
    }

    @Test func aLoopSeenInSeveralSnapshotsIsReportedOnceFromTheLatest() throws {
        let story = Story()
        let edges = story.conduitEdges + story.storeEdges(capture: .strong)
        let first = story.snapshot(1, "bound", nodes: story.nodes(), edges: edges)
        let second = story.snapshot(2, "later", nodes: story.nodes(), edges: edges)
        let cycles = story.cycles([first, second])
        #expect(cycles.count == 1)
        #expect(cycles.first?.message.contains("snapshot 2 \"later\"") == true)
    }

    @Test func aLoopALaterSnapshotShowsBrokenIsNotReported() {
        let story = Story()
        let bound = story.snapshot(1, "bound", nodes: story.nodes(), edges: story.conduitEdges + story.storeEdges(capture: .strong))
        let cancelled = story.snapshot(2, "cancelled", nodes: story.nodes(), edges: story.storeEdges(capture: .strong).dropLast(2))
        let gone = story.snapshot(2, "gone", nodes: story.nodes(dead: [story.sink, story.cancellable]), edges: [])
        #expect(story.cycles([bound, cancelled]).isEmpty)
        #expect(story.cycles([bound, gone]).isEmpty)
    }

    @Test func aLoopPiecedFromReferencesAPerCallSnapshotDidNotCheckIsNotReported() throws {
        let story = Story()
        let edges = story.conduitEdges + story.storeEdges(capture: .strong)
        // The view model's reference was last checked by an earlier snapshot (seq 1): the loop
        // may have been broken since.
        func perCall(lastChecked: [TraceObjectID: UInt64]) -> TraceSnapshot {
            TraceSnapshot(index: 2, seq: UInt64(story.script.events.count), label: "after subscribe @5", reason: .subscribe,
                          nodes: story.nodes(), edges: edges, lastChecked: lastChecked)
        }
        #expect(story.cycles([perCall(lastChecked: [story.viewModel: 1])]).isEmpty)
        // One it checked every holder of is reported, whatever it took from before.
        let checked = try #require(story.cycles([perCall(lastChecked: [story.subject: 1])]).first)
        #expect(checked.message.contains("snapshot 2 \"after subscribe @5\""))
        // A later per-call snapshot without the reference shows the loop broken only when it
        // checked the holder.
        let bound = story.snapshot(1, "bound", nodes: story.nodes(), edges: edges)
        let withoutStore = Array(story.conduitEdges + story.storeEdges(capture: .strong).dropFirst())
        func later(lastChecked: [TraceObjectID: UInt64]) -> TraceSnapshot {
            TraceSnapshot(index: 2, seq: UInt64(story.script.events.count), label: "after cancel @6", reason: .cancel,
                          nodes: story.nodes(), edges: withoutStore, lastChecked: lastChecked)
        }
        #expect(story.cycles([bound, later(lastChecked: [:])]).isEmpty)
        #expect(story.cycles([bound, later(lastChecked: [story.viewModel: 0])]).count == 1)
    }

    @Test func theShortestStrongPathStartsAtTheRoot() {
        let story = Story()
        let graph = story.graph(story.storeEdges(capture: .weak))
        #expect(graph.whyAlive(story.sink) == .heldByRoot(story.viewModel, path: Array(story.storeEdges(capture: .weak).prefix(3))))
        #expect(graph.sentence(explaining: graph.whyAlive(story.sink), subject: "Sink #3")
            == "ViewModel.cancellables → Set<AnyCancellable> → AnyCancellable → Sink keeps Sink #3 alive")
        #expect(graph.whyAlive(story.viewModel) == .heldByRoot(story.viewModel, path: []))
        #expect(graph.whyAlive(story.subject) == .unheld(story.subject, path: []))
        #expect(graph.whyAlive(TraceObjectID(99)) == .unknown)
        #expect(story.graph([], dead: [story.sink]).whyAlive(story.sink) == .deallocated)
    }

    @Test func anObjectHungFromALoopNothingHoldsNamesTheLoop() throws {
        let story = Story()
        // The view model is not a root here: a plain object nobody outside the loop holds.
        var script = story.script
        let nodes = story.nodes().map { Node(id: $0.id, kind: $0.kind == .root ? .object : $0.kind, retainCounts: nil, alive: true) }
        let snapshot = story.snapshot(1, "stop", nodes: nodes, edges: story.storeEdges(capture: .strong))
        script.snapshots = [snapshot]
        let graph = OwnershipGraph(snapshot: snapshot, trace: script.trace())
        let cycle = try #require(graph.strongCycles.first)
        #expect(graph.whyAlive(story.sink) == .heldByCycle(cycle, path: []))
        #expect(graph.sentence(explaining: graph.whyAlive(story.sink), subject: "Sink #3")
            == "Sink #3 is held by a retain cycle that nothing else in the graph holds: ViewModel.cancellables → Set<AnyCancellable> → AnyCancellable → "
                + "Sink.receiveValue (closure) → ViewModel")
    }

    @Test func anObjectOfTheLoopOffItsChainGetsThePathFromTheChain() throws {
        let story = Story()
        var script = story.script
        let nodes = story.nodes().map { Node(id: $0.id, kind: $0.kind == .root ? .object : $0.kind, retainCounts: nil, alive: true) }
        let snapshot = story.snapshot(1, "stop", nodes: nodes, edges: story.conduitEdges + story.storeEdges(capture: .strong))
        script.snapshots = [snapshot]
        let graph = OwnershipGraph(snapshot: snapshot, trace: script.trace())
        let cycle = try #require(graph.strongCycles.first)
        #expect(graph.strongCycles.count == 1)
        #expect(cycle.objects.contains(story.conduit) && !cycle.chainObjects.contains(story.conduit))
        #expect(graph.sentence(explaining: graph.whyAlive(story.subject), subject: "PassthroughSubject #1")
            == "Sink.status.subscribed.subscription → PassthroughSubject.Conduit.parent → PassthroughSubject keeps PassthroughSubject #1 "
                + "alive, and Sink is held by a retain cycle that nothing else in the graph holds: ViewModel.cancellables → "
                + "Set<AnyCancellable> → AnyCancellable → Sink.receiveValue (closure) → ViewModel")
    }

    @Test func aRootInALoopIsHeldByTheLoopLikeTheRestOfItsChain() throws {
        let story = Story()
        let edges = story.conduitEdges + story.storeEdges(capture: .strong)
        let graph = story.graph(edges)
        let cycle = try #require(graph.strongCycles.first)
        #expect(cycle.chainObjects.first == story.viewModel)
        #expect(graph.whyAlive(story.viewModel) == .heldByCycle(cycle, path: []))
        #expect(graph.whyAlive(story.sink) == .heldByCycle(cycle, path: []))
        #expect(graph.whyAlive(story.conduit) == .heldByCycle(cycle, path: [story.conduitEdges[3]]))
        #expect(graph.sentence(explaining: graph.whyAlive(story.viewModel), subject: "ViewModel #4")
            == "ViewModel #4 is held by a retain cycle that nothing else in the graph holds: ViewModel.cancellables → "
                + "Set<AnyCancellable> → AnyCancellable → Sink.receiveValue (closure) → ViewModel")
    }

    @Test func componentsAreFoundWithoutRecursionInADeterministicOrder() {
        let ids = (1...100_000).map { TraceObjectID(UInt64($0)) }
        var successors = Dictionary(uniqueKeysWithValues: zip(ids, ids.dropFirst()).map { ($0, [$1]) })
        successors[ids.last!] = [ids.first!]
        successors[TraceObjectID(200_001)] = [TraceObjectID(200_000)]
        let components = StronglyConnectedComponents(
            nodes: [TraceObjectID(200_001), TraceObjectID(200_000)] + ids.reversed(), successors: successors
        ).components
        #expect(components.map(\.count) == [100_000, 1, 1])
        #expect(components.map(\.first) == [ids.first, TraceObjectID(200_000), TraceObjectID(200_001)])
    }

    @Test func aSubscriberThatDiedEarlyIsShownWithTheOwnerItLacked() throws {
        var story = Story()
        let before = story.snapshot(1, "subscribed", nodes: story.nodes(), edges: [
            Edge(from: story.subject, to: story.conduit, field: "downstreams.single", ownership: .strong),
            Edge(from: story.conduit, to: story.sink, field: "downstream.subscriber", ownership: .weak),
        ])
        story.script.died(story.sink)
        story.script.snapshots = [before]
        let early = try #require(TraceAnalyzer().diagnose(story.script.trace()).first { $0.code == "subscriber-deallocated-early" })
        #expect(early.message.hasSuffix(
            "nothing had completed or cancelled the subscription, and it was still alive when recording stopped. In snapshot 1 \"subscribed\" (after event @\(before.seq)), "
                + "nothing in the graph holds Sink #3: only the stack, a global, a Task or something the inspection could not see can."))

        story.script.snapshots = []
        let withoutSnapshots = try #require(TraceAnalyzer().diagnose(story.script.trace()).first { $0.code == "subscriber-deallocated-early" })
        #expect(withoutSnapshots.message.hasSuffix(
            "nothing had completed or cancelled the subscription, and it was still alive when recording stopped."))
    }

    @Test func aLeakedSubscriptionNamesTheLoopThatKeepsIt() throws {
        var script = TraceScript()
        let begin = script.mark("begin")
        let (subject, conduit, sink) = (
            script.object("PassthroughSubject", .publisher), script.object("PassthroughSubject.Conduit", .subscription),
            script.object("Sink", .subscriber)
        )
        let viewModel = script.object("ViewModel", .object)
        script.subscribe(subject, sink) { script in
            script.receiveSubscription(sink, conduit) { script in script.request(conduit, .unlimited) }
        }
        let end = script.mark("end")
        script.snapshots = [TraceSnapshot(
            index: 1, seq: end, label: "stop", reason: .stop,
            nodes: [subject, conduit, sink, viewModel].map { Node(id: $0, kind: $0 == sink ? .subscriber : .object, retainCounts: nil, alive: true) },
            edges: [
                Edge(from: viewModel, to: sink, field: "sink", ownership: .strong),
                Edge(from: sink, to: viewModel, field: "receiveValue (closure)", ownership: .strong),
                Edge(from: sink, to: conduit, field: "status.subscribed.subscription", ownership: .strong),
            ]
        )]
        let rule = LeakedSubscriptionRule(scope: ObservedScope(begin: begin, end: end))
        let leak = try #require(rule.diagnose(TraceLifecycles(script.trace())).first)
        #expect(leak.message.hasSuffix(
            "In snapshot 1 \"stop\" (after event @\(end)), Sink #3 is held by a retain cycle that nothing else in the graph holds: "
                + "ViewModel.sink → Sink.receiveValue (closure) → ViewModel."))
    }
}
