import LifelineLog
import LifelineAnalysis

/// Writes a trace by hand, event by event, the way the recorder would: calls are bracketed by
/// `begin` and `end` events, and the events nested in a call are written by its body.
struct TraceScript {
    private(set) var objects: [TraceObject] = []
    private(set) var events: [TraceEvent] = []
    /// Ownership snapshots to put in the trace.
    var snapshots: [TraceSnapshot] = []
    /// The thread the next events run on: 1 is "main", 2 is "worker".
    var thread: UInt64 = 1

    static let main: UInt64 = 1
    static let worker: UInt64 = 2

    /// The sequence number the next event gets.
    var nextSeq: UInt64 { UInt64(events.count + 1) }

    /// Declares an object.
    mutating func object(
        _ shortTypeName: String, _ role: TraceObjectRole, label: String? = nil, source: String? = nil,
        tracked: Bool = true
    ) -> TraceObjectID {
        let id = TraceObjectID(UInt64(objects.count + 1))
        objects.append(TraceObject(
            id: id, role: role, typeName: "App.\(shortTypeName)", shortTypeName: shortTypeName, label: label,
            sourceLocation: source.map(TraceSourceLocation.init(fileAndLine:)), lifetimeTracked: tracked
        ))
        return id
    }

    /// Records one event and returns its sequence number.
    @discardableResult
    mutating func record(_ phase: TraceEvent.Phase, _ kind: TraceEvent.Kind, on thread: UInt64? = nil) -> UInt64 {
        let seq = nextSeq
        events.append(TraceEvent(
            seq: seq, time: seq * 1_000, thread: thread ?? self.thread, queue: nil, phase: phase, kind: kind
        ))
        return seq
    }

    /// Records a call: its `begin`, whatever `body` records inside it, and its `end`.
    mutating func call(
        _ begin: TraceEvent.Kind, end: TraceEvent.Kind? = nil, _ body: (inout TraceScript) -> Void = { _ in }
    ) {
        record(.begin, begin)
        body(&self)
        record(.end, end ?? begin)
    }

    mutating func subscribe(_ publisher: TraceObjectID, _ subscriber: TraceObjectID, _ body: (inout TraceScript) -> Void = { _ in }) {
        call(.subscribe(publisher: publisher, subscriber: subscriber), body)
    }

    mutating func receiveSubscription(
        _ subscriber: TraceObjectID, _ subscription: TraceObjectID, _ body: (inout TraceScript) -> Void = { _ in }
    ) {
        call(.receiveSubscription(subscriber: subscriber, subscription: subscription), body)
    }

    mutating func request(_ subscription: TraceObjectID, _ demand: TraceDemand, _ body: (inout TraceScript) -> Void = { _ in }) {
        call(.request(subscription: subscription, demand: demand), body)
    }

    mutating func value(
        _ subscriber: TraceObjectID, returning demand: TraceDemand = .none, _ body: (inout TraceScript) -> Void = { _ in }
    ) {
        call(
            .value(subscriber: subscriber, returnedDemand: nil, value: nil),
            end: .value(subscriber: subscriber, returnedDemand: demand, value: nil), body
        )
    }

    mutating func complete(
        _ subscriber: TraceObjectID, _ completion: TraceEvent.Completion = .finished,
        _ body: (inout TraceScript) -> Void = { _ in }
    ) {
        call(.completion(subscriber: subscriber, completion: completion), body)
    }

    mutating func cancel(_ subscription: TraceObjectID, _ body: (inout TraceScript) -> Void = { _ in }) {
        call(.cancel(subscription: subscription), body)
    }

    /// Records a death found by a liveness check, last seen alive at `aliveAt`.
    @discardableResult
    mutating func found(dead object: TraceObjectID, aliveAt: UInt64) -> UInt64 {
        record(.instant, .deallocation(object: object, evidence: .observed(aliveAtSeq: aliveAt)))
    }

    /// Records a death seen as it happened.
    @discardableResult
    mutating func died(_ object: TraceObjectID) -> UInt64 {
        record(.instant, .deallocation(object: object, evidence: .exact))
    }

    @discardableResult
    mutating func mark(_ label: String) -> UInt64 {
        record(.instant, .mark(label: label))
    }

    /// The trace, closed cleanly unless `closed` is false.
    func trace(closed: Bool = true) -> Trace {
        Trace(
            header: TraceHeader(
                processID: 7, processName: "script", startedAt: "2026-11-23T08:00:00Z", clockOrigin: 0,
                valueDescriptionLimit: nil
            ),
            objects: Dictionary(uniqueKeysWithValues: objects.map { ($0.id, $0) }),
            threads: [1: TraceThread(tid: 1, name: "main"), 2: TraceThread(tid: 2, name: "worker")],
            queues: [:], events: events, snapshots: snapshots, damage: closed ? [] : [.notClosed]
        )
    }

    /// The codes the standard analyzer finds in the trace.
    func codes(closed: Bool = true) -> [String] {
        TraceAnalyzer().diagnose(trace(closed: closed)).map(\.code)
    }
}
