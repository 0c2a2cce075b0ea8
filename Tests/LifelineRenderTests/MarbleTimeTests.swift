import Foundation
import LifelineLog
import Testing
@testable import LifelineRender

/// `--time` keeps time's order: a burst pushed apart on one timeline never lands to the
/// right of a later event on another, and values keep their text when there is room.
@Suite struct MarbleTimeTests {
    /// Forty values in a 40 µs burst to one sink, then one value a millisecond later to
    /// another, and a late value to the first.
    static var burstThenLater: Trace {
        var script = TraceScript()
        let burst = script.object(1, .subscriber, "Sink")
        let burstConduit = script.object(2, .subscription, "Conduit")
        let later = script.object(3, .subscriber, "Sink")
        let laterConduit = script.object(4, .subscription, "Conduit")
        script.call(.receiveSubscription(subscriber: burst, subscription: burstConduit))
        script.call(.receiveSubscription(subscriber: later, subscription: laterConduit))
        var times: [Int: UInt64] = [:]
        for value in 0..<40 {
            times[script.events.count + 1] = 1_000 * UInt64(value)
            times[script.events.count + 2] = 1_000 * UInt64(value) + 500
            script.call(.value(subscriber: burst, returnedDemand: nil, value: "b\(value)"), returning: .none)
        }
        times[script.events.count + 1] = 100_000
        times[script.events.count + 2] = 100_500
        script.call(.value(subscriber: later, returnedDemand: nil, value: "later value"), returning: .none)
        times[script.events.count + 1] = 1_000_000
        times[script.events.count + 2] = 1_000_500
        script.call(.value(subscriber: burst, returnedDemand: nil, value: "end"), returning: .none)
        let trace = script.trace
        return Trace(
            header: trace.header, objects: trace.objects, threads: trace.threads, queues: trace.queues,
            events: trace.events.map { event in
                TraceEvent(seq: event.seq, time: times[Int(event.seq)] ?? 0, thread: event.thread, queue: event.queue,
                           phase: event.phase, kind: event.kind)
            },
            damage: []
        )
    }

    /// Each marble's x and its value, from the SVG.
    static func marbles(_ svg: String) -> [(x: Int, value: String)] {
        let pattern = try! NSRegularExpression(pattern: "<circle cx=\"(\\d+)\"[^>]*><title>value: ([^<]*)</title>")
        let range = NSRange(svg.startIndex..., in: svg)
        return pattern.matches(in: svg, range: range).map { match in
            (Int(svg[Range(match.range(at: 1), in: svg)!])!, String(svg[Range(match.range(at: 2), in: svg)!]))
        }
    }

    @Test func anEarlierEventIsNeverDrawnRightOfALaterOne() {
        let svg = MarbleSVGRenderer.render(Self.burstThenLater, options: .init(axis: .time, folding: false))
        let marbles = Self.marbles(svg)
        let burst = marbles.filter { $0.value.hasPrefix("b") }.map(\.x)
        let later = marbles.first { $0.value == "later value" }!.x
        let end = marbles.first { $0.value == "end" }!.x
        #expect(burst.count == 40)
        #expect(burst.max()! <= later, "the burst ends at \(burst.max()!), after the later value at \(later)")
        #expect(later < end)
        #expect(burst == burst.sorted())
    }

    @Test func aValueKeepsItsTextWhenThereIsRoom() {
        let svg = MarbleSVGRenderer.render(Self.burstThenLater, options: .init(axis: .time, folding: false))
        #expect(svg.contains(">later value</text>"))
    }

    /// On the event-order axis a value passing synchronously down a pipeline is drawn at one
    /// x on every timeline it reaches; the next value, in a call of its own, is drawn to the
    /// right of it.
    @Test func aValuePassingDownAPipelineIsDrawnAtOnePlace() {
        var script = TraceScript()
        let map = script.object(1, .subscriber, "Map.Inner")
        let sink = script.object(2, .subscriber, "Sink")
        let conduit = script.object(3, .subscription, "Conduit")
        script.call(.receiveSubscription(subscriber: map, subscription: conduit))
        for value in 1...2 {
            script.call(.value(subscriber: map, returnedDemand: nil, value: "in\(value)"), returning: .none) {
                $0.call(.value(subscriber: sink, returnedDemand: nil, value: "out\(value)"), returning: .none)
            }
        }
        let marbles = Self.marbles(MarbleSVGRenderer.render(script.trace, options: .init(folding: false)))
        let x = Dictionary(uniqueKeysWithValues: marbles.map { ($0.value, $0.x) })
        #expect(x["in1"] == x["out1"])
        #expect(x["in2"] == x["out2"])
        #expect(x["in1"]! < x["in2"]!)
        let timed = Self.marbles(MarbleSVGRenderer.render(script.trace, options: .init(axis: .time, folding: false)))
        #expect(timed.count == 4)
    }
}
