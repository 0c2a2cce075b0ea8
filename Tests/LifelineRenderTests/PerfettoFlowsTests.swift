import LifelineLog
import Testing
@testable import LifelineRender

/// The flow arrows of a Perfetto trace link each delivery to the one it came from upstream.
@Suite struct PerfettoFlowsTests {
    /// A sink subscribed through eight `Map.Inner`s in turn: its upstream is the last one it was
    /// subscribed through, so only the values that came through that inner get arrows (which
    /// inner sent the others is not worked out, and no arrow is better than a wrong one). The
    /// choice once depended on a dictionary's order, which Swift seeds differently in every run:
    /// the old code drew the arrows of a random inner's values.
    @Test func aSinkSubscribedThroughSeveralUpstreamsTakesItsArrowsFromTheLast() throws {
        var script = TraceScript()
        let subject = script.object(1, .publisher, "PassthroughSubject")
        let sink = script.object(2, .subscriber, "Subscribers.Sink")
        var throughLastInner: [String] = []
        for index in 0..<8 {
            let inner = script.object(UInt64(10 + 2 * index), .subscriber, "Publishers.Map.Inner")
            let conduit = script.object(UInt64(11 + 2 * index), .subscription, "PassthroughSubject.Conduit")
            script.call(.subscribe(publisher: subject, subscriber: inner)) {
                $0.call(.receiveSubscription(subscriber: inner, subscription: conduit)) {
                    $0.call(.receiveSubscription(subscriber: sink, subscription: inner))
                }
            }
            for value in 1...2 {
                let delivered = "\(100 * index + value)"
                script.call(.value(subscriber: inner, returnedDemand: nil, value: "\(value)")) {
                    $0.call(.value(subscriber: sink, returnedDemand: nil, value: delivered))
                }
                if index == 7 { throughLastInner.append(delivered) }
            }
        }
        let model = SequenceModel(trace: script.trace, diagnoses: [], folding: false)
        let flows = PerfettoFlows(model: model)
        let sinkLane = try #require(model.lanes.firstIndex { $0.object.id == sink })
        var linked: [String] = []
        for (row, step) in model.steps.enumerated() {
            guard case .call(_, sinkLane, .value(let value), _) = step.content, let incoming = flows.incoming[row] else { continue }
            // The delivery to the inner that encloses this one is the row just before it.
            #expect(incoming == flows.outgoing[row - 1], "the value at row \(row) is not linked to the delivery that made it")
            linked.append(value ?? "")
        }
        #expect(linked == throughLastInner)
    }
}
