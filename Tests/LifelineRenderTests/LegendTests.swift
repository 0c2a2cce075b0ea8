import LifelineLog
import Testing
@testable import LifelineRender

/// A legend entry stands for what the picture draws in its colour: the threads and queues
/// calls ran on, not one where deaths were only found.
@Suite struct LegendTests {
    /// The map chain on the main thread, its objects found deallocated by a check that ran on
    /// a queue no call ran on, as the chat client's `chat.typing` was.
    static var deathsFoundOnAnotherQueue: Trace {
        var script = TraceScript()
        script.threads[2] = TraceThread(tid: 2, name: "worker")
        script.queues[1] = TraceQueue(id: 1, label: "com.example.checker")
        let sink = script.object(1, .subscriber, "Subscribers.Sink")
        let subject = script.object(2, .publisher, "PassthroughSubject", tracked: false)
        let conduit = script.object(3, .subscription, "PassthroughSubject.Conduit")
        script.call(.subscribe(publisher: subject, subscriber: sink)) {
            $0.call(.receiveSubscription(subscriber: sink, subscription: conduit)) {
                $0.call(.request(subscription: conduit, demand: .unlimited))
            }
        }
        script.call(.value(subscriber: sink, returnedDemand: nil, value: "1"))
        script.thread = 2
        script.queue = 1
        script.event(.instant, .deallocation(object: conduit, evidence: .observed(aliveAtSeq: 8)))
        script.event(.instant, .deallocation(object: sink, evidence: .observed(aliveAtSeq: 8)))
        return script.trace
    }

    @Test func aQueueWhereDeathsWereOnlyFoundIsNotInTheLegend() {
        let trace = Self.deathsFoundOnAnotherQueue
        let svg = SequenceSVGRenderer.render(trace)
        #expect(svg.contains(">main</text>"))
        #expect(!svg.contains("com.example.checker"), "\(svg)")
        #expect(svg.contains("found deallocated (alive at @8)"))
        let marbles = MarbleSVGRenderer.render(trace)
        #expect(marbles.contains(">main</text>") && !marbles.contains("com.example.checker"))
        // The text formats name a thread or queue only where calls move to it.
        #expect(!MermaidSequenceRenderer.render(trace).contains("com.example.checker"))
        #expect(!PlantUMLSequenceRenderer.render(trace).contains("com.example.checker"))
    }

    @Test func aQueueCallsRanOnStaysInTheLegend() {
        let svg = SequenceSVGRenderer.render(SampleTraces.receiveOnQueue)
        #expect(svg.contains(">main</text>") && svg.contains(">com.example.feed</text>"))
    }
}
