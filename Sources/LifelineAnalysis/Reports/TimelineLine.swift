import LifelineLog

/// One event told as a line of a timeline: its sequence number, where it ran, and what
/// happened, in Swift's own spelling of the call.
///
/// `@3  main  PassthroughSubject.Conduit #3.request(.unlimited) begins`
struct TimelineLine: Hashable, Sendable {
    /// The event's sequence number.
    let seq: UInt64
    /// The event's kind, as the log names it.
    let kind: String
    /// The event's phase.
    let phase: TraceEvent.Phase
    /// The queue label or thread name it ran on.
    let context: String
    /// What happened.
    let text: String

    init(_ event: TraceEvent, in trace: Trace) {
        seq = event.seq
        kind = event.kind.name
        phase = event.phase
        context = trace.executionContextName(of: event)
        text = Self.text(of: event, in: trace)
    }

    /// A line for a sequence number the trace does not have.
    init(missing seq: UInt64) {
        self.seq = seq
        kind = "missing"
        phase = .instant
        context = "?"
        text = "no such event in the log"
    }

    private static func text(of event: TraceEvent, in trace: Trace) -> String {
        let name = { (id: TraceObjectID) in trace.object(id)?.displayName ?? "object \(id)" }
        let call: String
        switch event.kind {
        case .subscribe(let publisher, let subscriber):
            call = "\(name(publisher)).subscribe(\(name(subscriber)))"
        case .receiveSubscription(let subscriber, let subscription):
            call = "\(name(subscriber)).receive(subscription: \(name(subscription)))"
        case .request(let subscription, let demand):
            call = "\(name(subscription)).request(\(demand.swiftSpelling))"
            if let place = trace.requestLocation(of: event) { return "\(call) begins: requested in \(place)" }
        case .value(let subscriber, let returned, let value):
            let base = "\(name(subscriber)).receive(\(value ?? "_:"))"
            if event.phase == .end, let returned { return "\(base) returns \(returned.swiftSpelling)" }
            call = base
        case .completion(let subscriber, let completion):
            call = "\(name(subscriber)).receive(completion: \(completion.swiftSpelling))"
        case .cancel(let subscription):
            call = "\(name(subscription)).cancel()"
            if let cause = trace.cancelSite(of: event)?.cancelPhrase { return "\(call) begins: \(cause)" }
        case .deallocation(let object, .exact):
            return "\(name(object)) is deallocated"
        case .deallocation(let object, .observed(let aliveAtSeq)):
            return "\(name(object)) is found deallocated (last seen alive at @\(aliveAtSeq))"
        case .mark(let label):
            return "mark \"\(label)\""
        }
        switch event.phase {
        case .begin: return "\(call) begins"
        case .end: return "\(call) returns"
        case .instant: return call
        }
    }
}
