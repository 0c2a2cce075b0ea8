import Foundation
import Testing
@testable import LifelineHeap

/// A Swift concurrency task holds what its closure captured for as long as it runs, and one
/// reference to itself; once its closure has returned it holds neither.
@Suite(.serialized) struct TaskHoldingsTests {
    final class Model: @unchecked Sendable {
        var task: Task<Void, Never>?
        var count: Task<Int, Never>?
    }

    final class Captured: @unchecked Sendable {}

    /// A stream that yields nothing until `finish`.
    final class Gate: @unchecked Sendable {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        func finish() { continuation.finish() }
    }

    /// A flag a task sets once it runs.
    final class Started: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    private func graph(from model: Model) -> HeapGraph {
        HeapInspector().inspect(roots: [HeapInspector.address(of: model)])
    }

    @Test func aRunningTaskHoldsItsClosuresCapturesAndItsOwnReference() async throws {
        let model = Model(), captured = Captured(), gate = Gate(), started = Started()
        model.task = Task { [captured] in
            started.set()
            for await _ in gate.stream { withExtendedLifetime(captured) {} }
        }
        // Waiting by sleeping, not by blocking one of the few threads tasks run on.
        for _ in 0..<500 where !started.isSet { try await Task.sleep(for: .milliseconds(20)) }
        #expect(started.isSet)
        let graph = graph(from: model)
        let task = try #require(graph.targets(of: HeapInspector.address(of: model), path: "task").first?.to)
        #expect(graph.nodes[task]?.typeName == "Swift.Task")
        // The model's reference is the task's only one the graph does not count as its own.
        #expect(graph.nodes[task]?.counts?.strong == 1)
        let held = graph.references(from: task).filter { $0.to == HeapInspector.address(of: captured) }
        #expect(held.map(\.path) == ["operation (closure)"], "\(graph.references(from: task))")
        gate.finish()
        await model.task?.value
        withExtendedLifetime(captured) {}
    }

    /// What an `AsyncPublisher`'s subscriber keeps while a `for await` loop waits for a value.
    final class Waiting: @unchecked Sendable {
        let lock = NSLock()
        var pending: [UnsafeContinuation<Int?, Never>] = []
    }

    @Test func aContinuationReachesTheTaskSuspendedOnItWithoutHoldingIt() async throws {
        let waiting = Waiting(), model = Model()
        model.task = Task {
            _ = await withUnsafeContinuation { continuation in waiting.lock.withLock { waiting.pending.append(continuation) } }
        }
        for _ in 0..<500 where waiting.lock.withLock({ waiting.pending.isEmpty }) { try await Task.sleep(for: .milliseconds(20)) }
        let graph = HeapInspector().inspect(roots: [HeapInspector.address(of: waiting)])
        // The array is drawn as its own node; its element reaches the task.
        let array = try #require(graph.targets(of: HeapInspector.address(of: waiting), path: "pending").first?.to)
        let edges = graph.references(from: array)
        #expect(edges.map(\.path) == ["[0]"], "\(edges)")
        #expect(edges.map(\.ownership) == [.unownedUnsafe])
        #expect(edges.first.map { graph.nodes[$0.to]?.typeName } == "Swift.Task")
        #expect(edges.first?.to == model.task.map { unsafeBitCast($0, to: UInt.self) })
        waiting.lock.withLock { waiting.pending.removeFirst() }.resume(returning: nil)
        await model.task?.value
    }

    @Test func aCompletedTaskHoldsNothing() async throws {
        let model = Model(), captured = Captured()
        model.count = Task { [captured] in withExtendedLifetime(captured) { 42 } }
        #expect(await model.count?.value == 42)
        // The runtime releases the closure's context when the closure returns, and the task
        // its own reference once it has completed; give that a moment on a loaded machine.
        let task = try #require(graph(from: model).targets(of: HeapInspector.address(of: model), path: "count").first?.to)
        var counts: HeapGraph.Counts?
        for _ in 0..<100 {
            counts = graph(from: model).nodes[task]?.counts
            if counts?.strong == 1 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let graph = graph(from: model)
        #expect(graph.nodes[task]?.typeName == "Swift.Task" && counts?.strong == 1)
        #expect(graph.references(from: task).isEmpty, "\(graph.references(from: task))")
        withExtendedLifetime(captured) {}
    }
}
