import Foundation
@testable import LifelineLog

/// A small log with every kind of line, encoded the way the recorder encodes it.
struct SampleLog {
    /// A version 5 header: the sample's objects write their types out, as before type lines.
    var header = TraceHeader(
        version: TraceHeader.untypedJSONLinesVersion, processID: 42, processName: "sample", startedAt: "2026-11-23T08:00:00Z", clockOrigin: 1_000,
        valueDescriptionLimit: 80
    )
    var objects = [
        TraceObject(id: TraceObjectID(1), role: .publisher, typeName: "OpenCombine.PassthroughSubject<Swift.Int, Swift.Never>",
                    shortTypeName: "PassthroughSubject", lifetimeTracked: true),
        TraceObject(id: TraceObjectID(2), role: .subscriber, typeName: "OpenCombine.Subscribers.Sink<Swift.Int, Swift.Never>",
                    shortTypeName: "Sink", label: "ui", sourceLocation: "App/View.swift:12", lifetimeTracked: true),
        TraceObject(id: TraceObjectID(3), role: .subscription, typeName: "OpenCombine.PassthroughSubject<Swift.Int, Swift.Never>.Conduit",
                    shortTypeName: "PassthroughSubject.Conduit", lifetimeTracked: true),
    ]
    let threads = [TraceThread(tid: 7, name: "main"), TraceThread(tid: 9, name: "thread 9")]
    let queues = [TraceQueue(id: 1, label: "com.example.work")]
    var events: [TraceEvent] = {
        let publisher = TraceObjectID(1), subscriber = TraceObjectID(2), subscription = TraceObjectID(3)
        let kinds: [(TraceEvent.Phase, TraceEvent.Kind)] = [
            (.begin, .subscribe(publisher: publisher, subscriber: subscriber)),
            (.begin, .receiveSubscription(subscriber: subscriber, subscription: subscription)),
            (.begin, .request(subscription: subscription, demand: .max(2))),
            (.end, .request(subscription: subscription, demand: .unlimited)),
            (.end, .receiveSubscription(subscriber: subscriber, subscription: subscription)),
            (.end, .subscribe(publisher: publisher, subscriber: subscriber)),
            (.begin, .value(subscriber: subscriber, returnedDemand: nil, value: "1")),
            (.end, .value(subscriber: subscriber, returnedDemand: .max(1), value: "1")),
            (.begin, .completion(subscriber: subscriber, completion: .failure("URLError(-1001)"))),
            (.end, .completion(subscriber: subscriber, completion: .finished)),
            (.begin, .cancel(subscription: subscription)),
            (.instant, .deallocation(object: subscription, evidence: .exact)),
            (.instant, .deallocation(object: subscriber, evidence: .observed(aliveAtSeq: 4))),
        ]
        return kinds.enumerated().map { index, entry in
            TraceEvent(seq: UInt64(index + 1), time: UInt64(index * 10), thread: index % 2 == 0 ? 7 : 9,
                       queue: index == 3 ? 1 : nil, phase: entry.0, kind: entry.1)
        }
    }()

    var declarationCount: Int { objects.count + threads.count + queues.count }

    /// The log's bytes, closed with an end record unless `closed` is false.
    func data(closed: Bool = true) -> Data {
        var bytes = Data()
        let add = { (line: UnsafeRawBufferPointer) in bytes.append(contentsOf: line) }
        TraceLineEncoder.withLine(for: header, add)
        objects.forEach { TraceLineEncoder.withLine(for: $0, add) }
        threads.forEach { TraceLineEncoder.withLine(for: $0, add) }
        queues.forEach { TraceLineEncoder.withLine(for: $0, add) }
        events.forEach { TraceLineEncoder.withLine(for: $0, add) }
        if closed { TraceLineEncoder.withEndLine(events: UInt64(events.count), dropped: 0, add) }
        return bytes
    }
}
