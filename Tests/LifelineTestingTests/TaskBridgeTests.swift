import Dispatch
import Foundation
import Lifeline
import LifelineAnalysis
import LifelineLog
import OpenCombineShim
import Testing

/// Pipelines that Swift concurrency code runs: a `Task` iterating a publisher with `for await`.
/// Inspection reads what a running task's closure captured, and the continuation by which the
/// loop's subscriber resumes the task: a model that keeps the task that captures it is a loop
/// through the task, which runs the subscription.
@Suite("Task-bridged pipelines, recorded", .serialized)
struct TaskBridgeTests {
    /// The line of ItemsModel.swift that holds `text`.
    private func itemsModelLine(_ text: String) throws -> Int {
        let source = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ThirdPartyStyle/ItemsModel.swift"),
            encoding: .utf8
        )
        return try #require(source.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(text) }) + 1
    }

    /// Records a screen that makes an `ItemsModel`, lets it render the store's items twice, and
    /// lets go of it, calling `stop()` first when `stopping`; with a snapshot after every call
    /// when `everyCall`.
    private func recordScreen(stopping: Bool, everyCall: Bool) throws -> Trace {
        let store = ItemsStore()
        let rendered = DispatchSemaphore(value: 0)
        return try Lifeline.record(options: RecordingOptions(snapshots: everyCall ? .everyCall : .atStop)) {
            let model = ItemsModel()
            Lifeline.track(model, name: "ItemsModel")
            model.start(store) { rendered.signal() }
            #expect(rendered.wait(timeout: .now() + .seconds(10)) == .success)
            store.items.send(["a"])
            #expect(rendered.wait(timeout: .now() + .seconds(10)) == .success)
            // The loop asked for its first value, its second, and, once it waits again, its third.
            for _ in 0..<3 { #expect(store.asked.wait(timeout: .now() + .seconds(10)) == .success) }
            if stopping {
                model.stop()
                // The cancelled loop ends, and the task lets go of its closure and the model.
                let deadline = Date().addingTimeInterval(10)
                while !model.isStopped, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
                #expect(model.isStopped)
            }
        }
    }

    @Test(arguments: [false, true])
    func aModelThatKeepsTheTaskThatCapturesItIsALoopThroughTheTaskAndItsForAwaitLoop(everyCall: Bool) throws {
        let trace = try recordScreen(stopping: false, everyCall: everyCall)
        let lifecycles = TraceLifecycles(trace)
        let stop = try #require(trace.snapshots.last)
        let graph = OwnershipGraph(snapshot: stop, trace: trace)
        let model = try #require(stop.nodes.first { $0.kind == .root && $0.alive })
        let sentence = graph.sentence(explaining: lifecycles.whyAlive(model.id, in: graph), subject: "ItemsModel")
        #expect(sentence == "ItemsModel is held by a retain cycle that nothing else in the graph holds: ItemsModel.task → "
            + "Task.operation (closure) → ItemsModel", "\(sentence)")
        // The screen let go of the model: only the loop holds it, and only the loop holds the
        // task's handle, the one way to cancel its `for await` loop. The task is named by its
        // closure's line, the loop by its `for await` line (the iterator subscribes in code the
        // compiler made for that statement, which DWARF gives line 0).
        let taskLine = try itemsModelLine("task = Task {"), loopLine = try itemsModelLine("for await items in")
        let findings = TraceAnalyzer().diagnose(lifecycles)
        #expect(findings.map(\.code) == ["retain-cycle"] && findings.map(\.severity) == [.error], "\(findings)")
        let finding = try #require(findings.first)
        #expect(finding.message.contains("The Task at ItemsModel.swift:\(taskLine) is suspended in a `for await` loop over "
            + "AsyncPublisher.Iterator.Inner #"), "\(finding.message)")
        #expect(finding.message.contains("(ItemsModel.swift:\(loopLine)): it runs until that publisher completes"), "\(finding.message)")
        #expect(finding.fix.hasPrefix("Break the loop: cancel the Task at ItemsModel.swift:\(taskLine) on teardown"), "\(finding.fix)")
        #expect(finding.fix.contains("in the closure at ItemsModel.swift:\(taskLine)"), "\(finding.fix)")
        // The evidence is the loop's subscribe call, not the last event before the snapshot.
        let first = try #require(finding.evidence.first.flatMap { seq in trace.events.first { $0.seq == seq } })
        guard case .subscribe(_, let subscriber) = first.kind else {
            Issue.record("the first evidence is \(first)")
            return
        }
        #expect(trace.object(subscriber)?.shortTypeName == "AsyncPublisher.Iterator.Inner")
    }

    @Test func aModelATaskKeepsWithoutAHandleIsHeldByTheTaskThatRunsOnByItself() throws {
        let store = ItemsStore()
        let rendered = DispatchSemaphore(value: 0)
        let trace = try Lifeline.record {
            let model = ItemsFeedModel()
            Lifeline.track(model, name: "ItemsFeedModel")
            model.start(store) { rendered.signal() }
            #expect(rendered.wait(timeout: .now() + .seconds(10)) == .success)
            // The loop asked for its first value and, once it waits again, its second.
            for _ in 0..<2 { #expect(store.asked.wait(timeout: .now() + .seconds(10)) == .success) }
        }
        let stop = try #require(trace.snapshots.last)
        let graph = OwnershipGraph(snapshot: stop, trace: trace)
        let model = try #require(stop.nodes.first { $0.kind == .root && $0.alive })
        let sentence = graph.sentence(explaining: TraceLifecycles(trace).whyAlive(model.id, in: graph), subject: "ItemsFeedModel")
        #expect(sentence.hasPrefix("Task.operation (closure) → ItemsFeedModel keeps ItemsFeedModel alive, and Task runs on by itself: "
            + "it is suspended in a `for await` loop over AsyncPublisher.Iterator.Inner"), "\(sentence)")
        #expect(sentence.hasSuffix("until that publisher completes or the task is cancelled; nothing in the graph holds its handle"))
        // No loop, and the store can still complete the task's loop: nothing proves a leak.
        #expect(TraceAnalyzer().diagnose(trace).isEmpty)
    }

    @Test(arguments: [false, true])
    func aModelWhoseScreenCancelsItsTaskIsNoFinding(everyCall: Bool) throws {
        let trace = try recordScreen(stopping: true, everyCall: everyCall)
        let findings = TraceAnalyzer().diagnose(TraceLifecycles(trace))
        #expect(findings.isEmpty, "\(findings)")
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
