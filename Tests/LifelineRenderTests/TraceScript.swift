import LifelineLog

/// Builds a trace by hand, one call at a time, with sequence numbers and times assigned in
/// order.
struct TraceScript {
    var objects: [TraceObjectID: TraceObject] = [:]
    var threads: [UInt64: TraceThread] = [1: TraceThread(tid: 1, name: "main")]
    var queues: [UInt32: TraceQueue] = [:]
    var events: [TraceEvent] = []
    var processName = "sample"
    /// The thread and queue the next events run on.
    var thread: UInt64 = 1
    var queue: UInt32?
    /// Whether the log ends with its end record; a log without one (a program killed while
    /// its pipelines waited) gets each open pipeline's waits drawn.
    var closed = true

    @discardableResult
    mutating func object(
        _ id: UInt64, _ role: TraceObjectRole, _ shortName: String, label: String? = nil, tracked: Bool = true
    ) -> TraceObjectID {
        let objectID = TraceObjectID(id)
        objects[objectID] = TraceObject(
            id: objectID, role: role, typeName: "OpenCombine.\(shortName)<Swift.Int, Swift.Never>",
            shortTypeName: shortName, label: label, sourceLocation: label.map { _ in TraceSourceLocation(fileAndLine: "App/Feed.swift:12") },
            lifetimeTracked: tracked
        )
        return objectID
    }

    mutating func event(_ phase: TraceEvent.Phase, _ kind: TraceEvent.Kind) {
        let seq = UInt64(events.count + 1)
        events.append(TraceEvent(seq: seq, time: seq * 1_500, thread: thread, queue: queue, phase: phase, kind: kind))
    }

    /// Records `kind` as a call: its begin, whatever `body` records inside, then its end.
    /// The end of a value delivery carries `returning`.
    mutating func call(_ kind: TraceEvent.Kind, returning demand: TraceDemand? = nil, _ body: (inout TraceScript) -> Void = { _ in }) {
        event(.begin, kind)
        body(&self)
        if case .value(let subscriber, _, let value) = kind {
            event(.end, .value(subscriber: subscriber, returnedDemand: demand ?? TraceDemand.none, value: value))
        } else {
            event(.end, kind)
        }
    }

    /// Records `sink` subscribing through one operator, as the recorder sees it: the
    /// operator's stage `inner` subscribes to `source` and is handed `conduit` inside the
    /// subscribe, hands itself to `sink`, and passes `sink`'s unlimited request up.
    mutating func subscribeThroughOperator(
        source: TraceObjectID, operator: TraceObjectID, inner: TraceObjectID, conduit: TraceObjectID, sink: TraceObjectID
    ) {
        call(.subscribe(publisher: `operator`, subscriber: sink)) {
            $0.call(.subscribe(publisher: source, subscriber: inner)) {
                $0.call(.receiveSubscription(subscriber: inner, subscription: conduit)) {
                    $0.call(.receiveSubscription(subscriber: sink, subscription: inner)) {
                        $0.call(.request(subscription: inner, demand: .unlimited)) {
                            $0.call(.request(subscription: conduit, demand: .unlimited))
                        }
                    }
                }
            }
        }
    }

    var trace: Trace {
        Trace(
            header: TraceHeader(processID: 7, processName: processName, startedAt: "2026-11-23T08:00:00Z",
                                clockOrigin: 0, valueDescriptionLimit: 80),
            objects: objects, threads: threads, queues: queues, events: events, damage: closed ? [] : [.notClosed]
        )
    }
}
