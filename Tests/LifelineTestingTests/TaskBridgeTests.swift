import Dispatch
import Lifeline
import LifelineAnalysis
import LifelineLog
import OpenCombineShim
import Testing

/// Pipelines that Swift concurrency code runs: a `Task` iterating a publisher with `for await`.
/// The inspection does not read a task's frames, so what the task holds is said to be held by
/// something not inspected, naming the `for await` loop that was still running.
@Suite("Task-bridged pipelines, recorded", .serialized)
struct TaskBridgeTests {
    @Test func aModelThatATaskKeepsIsSaidToBeHeldByTheTasksForAwaitLoop() throws {
        let store = ItemsStore()
        let rendered = DispatchSemaphore(value: 0)
        let trace = try Lifeline.record {
            // The model's task captures it, and the model keeps the task: the screen lets go of
            // the model at the end of this block, and the task keeps it.
            let model = ItemsModel()
            Lifeline.track(model, name: "ItemsModel")
            model.start(store) { rendered.signal() }
            #expect(rendered.wait(timeout: .now() + .seconds(10)) == .success)
            store.items.send(["a"])
            #expect(rendered.wait(timeout: .now() + .seconds(10)) == .success)
        }
        let lifecycles = TraceLifecycles(trace)
        let stop = try #require(trace.snapshots.last)
        let graph = OwnershipGraph(snapshot: stop, trace: trace)
        let model = try #require(stop.nodes.first { $0.kind == .root && $0.alive })
        let sentence = graph.sentence(explaining: lifecycles.whyAlive(model.id, in: graph), subject: "ItemsModel")
        #expect(sentence.hasPrefix("ItemsModel is a registered root: what holds it is outside the graph (the stack, a global or a "
            + "Task); a `for await` loop over a publisher was still running in a Task, whose frames the inspection does not read "
            + "(AsyncPublisher.Iterator.Inner #"), "\(sentence)")
        #expect(sentence.hasSuffix("(ItemsModel.swift))"), "\(sentence)")
        // The iterator's subscription is Combine's own loop, held by the task: no finding claims
        // more than the log proves.
        #expect(TraceAnalyzer().diagnose(lifecycles).isEmpty)
    }
}
