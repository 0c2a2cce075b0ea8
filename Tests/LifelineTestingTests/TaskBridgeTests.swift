import Dispatch
import Foundation
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
        // The loop is named by its `for await` line: the iterator subscribes in code the compiler
        // made for that statement, which DWARF gives line 0.
        let source = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ThirdPartyStyle/ItemsModel.swift"),
            encoding: .utf8
        )
        let loopLine = try #require(source.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("for await items in") }) + 1
        #expect(sentence.hasSuffix("(ItemsModel.swift:\(loopLine)))"), "\(sentence)")
        // The iterator's subscription is Combine's own loop, held by the task: no finding claims
        // more than the log proves. Nor does a stall: when recording stops, the loop's body may
        // still be running with the last value, and the loop asks for the next one after it.
        #expect(TraceAnalyzer().diagnose(lifecycles).isEmpty)
    }

    @Test func aForAwaitLoopStillInItsBodyWhenRecordingStopsHasNotStalled() throws {
        let store = ItemsStore()
        let model = ItemsModel()
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let trace = try Lifeline.record {
            // The loop's body holds the subject's first value until recording has stopped: the
            // loop has used its demand and not yet asked for the next value.
            model.start(store) {
                entered.signal()
                release.wait()
            }
            #expect(entered.wait(timeout: .now() + .seconds(10)) == .success)
        }
        release.signal()
        store.items.send(completion: .finished)
        let lifecycles = TraceLifecycles(trace)
        let loop = try #require(lifecycles.lifecycles.first { trace.object($0.subscriber)?.shortTypeName == "AsyncPublisher.Iterator.Inner" })
        #expect(loop.deliveries.count == 1 && loop.outstandingDemand == .none)
        #expect(DemandStalledRule().diagnose(lifecycles).isEmpty)
    }
}
