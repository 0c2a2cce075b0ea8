import LifelineLog
import Testing
@testable import LifelineAnalysis

/// Explanations of what keeps an object alive tell objects of one type apart: by where their
/// pipelines were made, then by label, then by id, and leave a name no other object of the
/// snapshot has alone.
@Suite struct DistinctNamesTests {
    typealias Edge = TraceSnapshot.Edge
    typealias Node = TraceSnapshot.Node

    /// A retry's chain as the chat client leaves it: a `Timeout.Inner` nothing holds holds a
    /// `Retry.Inner`, which holds a second `Timeout.Inner`, which holds its timer's
    /// `AnyCancellable`, which holds another `AnyCancellable`.
    func graph(sources: [String?] = [nil, nil], labels: [String?] = [nil, nil]) -> (graph: OwnershipGraph, ids: [TraceObjectID]) {
        var script = TraceScript()
        let outer = script.object("Timeout.Inner", .subscriber, label: labels[0], source: sources[0])
        let retry = script.object("Retry.Inner", .subscriber)
        let inner = script.object("Timeout.Inner", .subscriber, label: labels[1], source: sources[1])
        let timer = script.object("AnyCancellable", .object)
        let wrapped = script.object("AnyCancellable", .object)
        let ids = [outer, retry, inner, timer, wrapped]
        let nodes = ids.map { Node(id: $0, kind: $0 == timer || $0 == wrapped ? .cancellable : .subscriber, retainCounts: nil, alive: true) }
        let edges = [
            Edge(from: outer, to: retry, field: "downstream.subscriber", ownership: .strong),
            Edge(from: retry, to: inner, field: "upstreamSubscription.subscription", ownership: .strong),
            Edge(from: inner, to: timer, field: "timer", ownership: .strong),
            Edge(from: timer, to: wrapped, field: "_cancel (closure)", ownership: .strong),
        ]
        let snapshot = TraceSnapshot(index: 1, seq: 0, label: "stop", reason: .stop, nodes: nodes, edges: edges)
        script.snapshots = [snapshot]
        return (OwnershipGraph(snapshot: snapshot, trace: script.trace()), ids)
    }

    @Test func objectsOfOneTypeAreToldApartByIdWhenNothingElseDoes() {
        let (graph, ids) = graph()
        #expect(graph.sentence(explaining: graph.whyAlive(ids[4]), subject: "AnyCancellable #5")
            == "Timeout.Inner #1.downstream.subscriber → Retry.Inner.upstreamSubscription.subscription → Timeout.Inner #3.timer → "
                + "AnyCancellable #4 → AnyCancellable #5 keeps AnyCancellable #5 alive, and nothing in the graph holds Timeout.Inner #1")
    }

    @Test func anObjectOnlyTheSubjectSharesItsTypeWithIsToldApartToo() {
        let (graph, ids) = graph()
        // The chain names one Timeout.Inner besides the subject, another one.
        #expect(graph.sentence(explaining: graph.whyAlive(ids[2]), subject: "Timeout.Inner #3")
            == "Timeout.Inner #1.downstream.subscriber → Retry.Inner.upstreamSubscription.subscription → Timeout.Inner #3 keeps "
                + "Timeout.Inner #3 alive, and nothing in the graph holds Timeout.Inner #1")
    }

    @Test func whereThePipelinesWereMadeComesFirstThenTheLabel() {
        let placed = graph(sources: ["Chat.swift:32", "Chat.swift:40"], labels: ["a", "b"]).graph
        #expect(placed.distinctName(of: TraceObjectID(1)) == "Timeout.Inner (Chat.swift:32)")
        #expect(placed.distinctName(of: TraceObjectID(2)) == "Retry.Inner")
        let labelled = graph(sources: ["Chat.swift:32", "Chat.swift:32"], labels: ["a", "b"]).graph
        #expect(labelled.distinctName(of: TraceObjectID(3)) == "Timeout.Inner \"b\" (Chat.swift:32)")
        let alike = graph(sources: ["Chat.swift:32", "Chat.swift:32"], labels: ["a", "a"]).graph
        #expect(alike.distinctName(of: TraceObjectID(3)) == "Timeout.Inner #3")
    }
}
