import OpenCombineShim
import Testing
@testable import LifelineHeap

/// The retain cycle a view model makes by storing a sink that captures it, and the same code
/// with `[weak self]`.
@Suite struct SinkOwnershipTests {
    final class ViewModel {
        let subject = PassthroughSubject<Int, Never>()
        var cancellables = Set<AnyCancellable>()
        var value = 0

        func bindStrongly() {
            subject.sink { self.value = $0 }.store(in: &cancellables)
        }

        func bindWeakly() {
            subject.sink { [weak self] in self?.value = $0 }.store(in: &cancellables)
        }

        func bindUnowned() {
            subject.sink { [unowned self] in self.value = $0 }.store(in: &cancellables)
        }
    }

    /// The view model's graph with the objects on the cycle named: the set's storage, the
    /// AnyCancellable in it, and the sink that AnyCancellable cancels.
    func inspect(_ model: ViewModel) throws -> (graph: HeapGraph, names: [UInt: String]) {
        let root = HeapInspector.address(of: model)
        let graph = HeapInspector().inspect(roots: [root])
        let set = try #require(graph.targets(of: root, path: "cancellables").first?.to)
        let cancellable = try #require(graph.targets(of: set, path: "[0]").first?.to)
        let sink = try #require(graph.targets(of: cancellable, path: "_cancel (closure)").first?.to)
        return (graph, [root: "ViewModel", set: "Set<AnyCancellable>", cancellable: "AnyCancellable", sink: "Sink"])
    }

    @Test func aSinkThatCapturesSelfClosesAStrongCycle() throws {
        let model = ViewModel()
        model.bindStrongly()
        let (graph, names) = try inspect(model)
        let cycle: Set<NamedEdge> = [
            NamedEdge("ViewModel", "cancellables", "Set<AnyCancellable>"),
            NamedEdge("Set<AnyCancellable>", "[0]", "AnyCancellable"),
            NamedEdge("AnyCancellable", "_cancel (closure)", "Sink"),
            NamedEdge("Sink", "receiveValue (closure)", "ViewModel"),
        ]
        let edges = graph.namedEdges(names)
        #expect(cycle.isSubset(of: edges), "missing: \(cycle.subtracting(edges))")
        #expect(!edges.contains { $0.from == "Sink" && $0.to == "ViewModel" && $0.ownership != .strong })
        #expect(graph.nodes.values.first { names[$0.address] == "Sink" }?.typeName.hasPrefix("OpenCombine.Subscribers.Sink<") == true)
        // Break the cycle so the test leaks nothing.
        model.cancellables.removeAll()
    }

    @Test func aWeakSelfSinkHoldsTheModelOnlyWeakly() throws {
        let model = ViewModel()
        model.bindWeakly()
        let (graph, names) = try inspect(model)
        let edges = graph.namedEdges(names)
        #expect(edges.contains(NamedEdge("Sink", "receiveValue (closure)", "ViewModel", .weak)))
        #expect(!edges.contains { $0.to == "ViewModel" && $0.ownership == .strong })
    }

    @Test func anUnownedSelfSinkHoldsTheModelUnowned() throws {
        let model = ViewModel()
        model.bindUnowned()
        let (graph, names) = try inspect(model)
        let edges = graph.namedEdges(names)
        #expect(edges.contains(NamedEdge("Sink", "receiveValue (closure)", "ViewModel", .unowned)))
        #expect(!edges.contains { $0.to == "ViewModel" && $0.ownership == .strong })
        model.cancellables.removeAll()
    }

    @Test func theSinkHoldsItsSubscriptionAndTheSubjectItsConduit() throws {
        let model = ViewModel()
        model.bindWeakly()
        let (graph, names) = try inspect(model)
        let root = HeapInspector.address(of: model)
        let subject = try #require(graph.targets(of: root, path: "subject").first?.to)
        let sink = try #require(names.first { $0.value == "Sink" }?.key)
        let subscription = try #require(graph.references(from: sink).first { $0.path == "status.subscribed" }?.to)
        #expect(graph.nodes[subscription]?.typeName.contains("Conduit") == true)
        #expect(graph.references(from: subject).contains { $0.to == subscription },
                "the subject keeps its conduit: \(graph.references(from: subject).map(\.path))")
    }
}
