import LifelineLog

/// Finds subscribers that were inside two receive calls (`receive(subscription:)`,
/// `receive(_:)`, `receive(completion:)`) on two threads at once. Combine requires calls to a
/// subscriber to be serialized.
///
/// Only overlaps the log proves are reported: a call on one thread began after a call on
/// another thread had begun and before that call's recorded end. A call with no end (a
/// damaged log) proves nothing. Re-entrant calls on one thread are allowed.
///
/// When the first call is the `receive(subscription:)` that handed the sending subscription
/// over, its result overtook the handshake (OpenCombine's `Future` and subjects hand a
/// subscription over outside their lock, so a promise fulfilled on another queue can do it):
/// the finding says so, cites a snapshot taken on the subscribing thread inside that call,
/// which widened the window, and suggests sending where the subscribe runs or subscribing
/// where the sends run. When that subscription is of Combine's own implementation (its
/// `Future`, a subject), the race is the implementation's, not the program's: it is not
/// reported here but listed apart (``LibraryFinding``).
public struct ConcurrentDeliveryRule: DiagnosisRule {
    public let code = "concurrent-delivery"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        Self.overlaps(in: lifecycles).filter { !$0.isCombinesOwnHandOver(in: lifecycles) }.map { overlap in
            diagnosis(overlap.subscriber, first: overlap.first, firstEnd: overlap.firstEnd, second: overlap.second, in: lifecycles)
        }
    }

    /// Two receive calls on one subscriber on two threads at once: the first overlap the log
    /// proves for each subscriber.
    struct Overlap {
        let subscriber: TraceObjectID
        /// The call that was running, its begin event and its end's sequence number.
        let first: TraceEvent
        let firstEnd: UInt64
        /// The call that began on another thread while it ran.
        let second: TraceEvent

        /// The subscription that sent the second call, when it is the one the first call, a
        /// `receive(subscription:)`, was handing over: its result overtook the handshake.
        func overtakingSubscription(in lifecycles: TraceLifecycles) -> TraceObjectID? {
            guard case .receiveSubscription(_, let handed) = first.kind,
                  let subscription = lifecycles.lifecycle(ofEvent: second.seq)?.subscription, handed == subscription
            else { return nil }
            return subscription
        }

        /// Whether the result overtook the handshake of a subscription of Combine's own
        /// implementation (OpenCombine's `Future` and subjects hand a subscription over outside
        /// their lock): the implementation's race, not the program's.
        func isCombinesOwnHandOver(in lifecycles: TraceLifecycles) -> Bool {
            guard let subscription = overtakingSubscription(in: lifecycles), let type = lifecycles.trace.object(subscription)?.typeName
            else { return false }
            return type.hasPrefix("OpenCombine.") || type.hasPrefix("Combine.")
        }
    }

    /// The first overlap the log proves for each subscriber, in the order of their second calls.
    static func overlaps(in lifecycles: TraceLifecycles) -> [Overlap] {
        var open: [TraceObjectID: [TraceCall]] = [:]
        var reported = Set<TraceObjectID>()
        var overlaps: [Overlap] = []
        for event in lifecycles.trace.events where event.phase == .begin {
            guard let subscriber = Self.receiver(of: event.kind), let call = lifecycles.calls.call(at: event.seq) else {
                continue
            }
            let running = open[subscriber, default: []].filter { $0.end.map { $0 > event.seq } ?? false }
            if let other = running.first(where: { $0.thread != event.thread }), reported.insert(subscriber).inserted,
               let otherEvent = lifecycles.event(other.begin), let otherEnd = other.end {
                overlaps.append(Overlap(subscriber: subscriber, first: otherEvent, firstEnd: otherEnd, second: event))
            }
            open[subscriber] = running + [call]
        }
        return overlaps
    }

    private func diagnosis(
        _ subscriber: TraceObjectID, first: TraceEvent, firstEnd: UInt64, second: TraceEvent, in lifecycles: TraceLifecycles
    ) -> Diagnosis {
        let lifecycle = lifecycles.lifecycle(ofEvent: second.seq)
        let (sending, subscribing) = (
            lifecycles.trace.executionContextName(of: second), lifecycles.trace.executionContextName(of: first)
        )
        var (secondPlace, firstPlace) = (sending, subscribing)
        // Two threads of one concurrent queue share its label: tell them apart.
        if secondPlace == firstPlace {
            secondPlace += " (thread \(second.thread))"
            firstPlace = "another thread of it (thread \(first.thread))"
        }
        let sender = lifecycle?.subscription.map { "the sends of \(lifecycles.name($0))" } ?? "the publisher's sends"
        var message = "\(lifecycles.name(subscriber)) was called on two threads at once: \(Self.callName(second.kind)) "
            + "began on \(secondPlace) while \(Self.callName(first.kind)) was still running on \(firstPlace)."
        var fix = "Deliver to a subscriber from one thread at a time: serialize \(sender) with a lock or a serial queue."
        var evidence = [first.seq, second.seq, firstEnd]
        if let subscription = Overlap(subscriber: subscriber, first: first, firstEnd: firstEnd, second: second)
            .overtakingSubscription(in: lifecycles) {
            // The subscription sent before the handshake that handed it over had returned.
            message += " The result of \(lifecycles.name(subscription)) overtook the handshake that handed it over."
            let pause = lifecycles.trace.snapshots.first { snapshot in
                snapshot.seq >= first.seq && snapshot.seq < second.seq && lifecycles.event(snapshot.seq)?.thread == first.thread
            }
            if let pause {
                message += " Recording widened the window: snapshot \(pause.index) was taken on \(subscribing) inside that "
                    + "receive(subscription:), after @\(pause.seq)."
                evidence.append(pause.seq)
            }
            fix = "Send on the queue that subscribes, or subscribe on the queue that sends: deliver the results of "
                + "\(lifecycles.name(subscription)) on \(subscribing), or subscribe to its publisher with subscribe(on:) on "
                + "\(sending) if that is a serial queue, so that its result cannot arrive while the subscription is being "
                + "handed over."
        }
        return Diagnosis(
            code: code, severity: .error,
            objects: [subscriber] + [lifecycle?.subscription, lifecycle?.publisher].compactMap { $0 },
            evidence: evidence.sorted(),
            message: message,
            fix: fix + " A receive(on:) in front of the subscriber would only move the overlap onto receive(on:)'s own subscriber.",
            hop: lifecycle?.hop
        )
    }

    private static func receiver(of kind: TraceEvent.Kind) -> TraceObjectID? {
        switch kind {
        case .receiveSubscription(let subscriber, _), .value(let subscriber, _, _), .completion(let subscriber, _):
            return subscriber
        case .subscribe, .request, .cancel, .deallocation, .mark:
            return nil
        }
    }

    private static func callName(_ kind: TraceEvent.Kind) -> String {
        switch kind {
        case .receiveSubscription: return "receive(subscription:)"
        case .completion: return "receive(completion:)"
        default: return "receive(_:)"
        }
    }
}
