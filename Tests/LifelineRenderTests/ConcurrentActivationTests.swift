import Foundation
import LifelineLog
@testable import LifelineRender
import Testing

/// Two threads inside one subscriber at once (a concurrent delivery): each activation bar
/// ends where its own thread returned, not where the other thread did.
@Suite struct ConcurrentActivationTests {
    @Test func eachThreadsActivationEndsWhereThatThreadReturned() throws {
        var script = TraceScript()
        let subject = script.object(1, .publisher, "ChunkFetch")
        let fetch = script.object(2, .subscription, "ChunkFetch.Subscription")
        let writer = script.object(3, .subscriber, "ChunkWriter", label: "writer")
        script.call(.subscribe(publisher: subject, subscriber: writer)) {
            $0.call(.receiveSubscription(subscriber: writer, subscription: fetch)) {
                $0.call(.request(subscription: fetch, demand: .unlimited))
            }
        }
        script.threads[2] = TraceThread(tid: 2, name: "connection 1")
        script.threads[3] = TraceThread(tid: 3, name: "connection 2")
        // Thread 2 begins first and returns first; thread 3 begins inside thread 2's call.
        script.thread = 2
        script.event(.begin, .value(subscriber: writer, returnedDemand: nil, value: "chunk 1"))
        script.thread = 3
        script.event(.begin, .value(subscriber: writer, returnedDemand: nil, value: "chunk 2"))
        script.thread = 2
        script.event(.end, .value(subscriber: writer, returnedDemand: TraceDemand.none, value: "chunk 1"))
        script.thread = 3
        script.event(.end, .value(subscriber: writer, returnedDemand: TraceDemand.none, value: "chunk 2"))

        let svg = SequenceSVGRenderer.render(script.trace, diagnoses: [])
        let bars = svg.matches(of: /<rect x="(\d+)" y="(\d+)" width="\d+" height="(\d+)" class="a(\d+)"\/>/).map { match in
            (top: Int(match.output.2)!, bottom: Int(match.output.2)! + Int(match.output.3)!, colour: match.output.4)
        }
        // The two deliveries are the last two calls: the two bars that open last.
        let deliveries = bars.sorted { $0.top < $1.top }.suffix(2)
        let first = try #require(deliveries.first), second = try #require(deliveries.last)
        #expect(first.colour != second.colour, "each thread draws its own colour: \(bars)")
        #expect(first.bottom < second.bottom, "the delivery that began first also returned first: \(bars)")
    }
}
