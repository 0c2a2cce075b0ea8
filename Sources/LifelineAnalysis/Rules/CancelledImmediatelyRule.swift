import LifelineLog

/// Finds subscriptions whose token the program let go of before any value or completion
/// arrived, in the function that made them: the shape of `_ = publisher.sink { }`, or of a token
/// stored in a local set that dies when the function returns.
///
/// Only the end of a pipeline is checked (a subscriber that is no operator's stage, subscribed
/// from the program's own code), and only a cancel that is not itself part of another cancel:
/// operators that cancel upstream (`first()`, `prefix`, `zip`, `switchToLatest`) or that
/// forward a downstream cancel are never reported. A value or completion that reached the
/// subscriber before the cancel (as `Just` sends inside the subscribe call) clears it, and a
/// cancel that answers a duplicate subscription is left to `duplicate-subscription`. Values that
/// reached a hop upstream and were not passed on (a `filter` dropped them, a `receive(on:)` had
/// them on their way) don't: the message counts them, at the nearest hop that had any.
///
/// The decision is made by what caused the cancel, as its call site in the log says:
/// - **released**: an `AnyCancellable` was being deinitialized. It is a finding when the release
///   happened on the subscribing thread, in the function whose call subscribed the pipeline,
///   before that call site subscribed again: the function dropped the token it had just made,
///   whatever else it did in between. A token replaced by the next subscribe from the same line
///   (`token = search(query).sink { }`) or released by its owner's deinit is not.
/// - **called**: the program called `cancel()` itself. Never a finding, however soon.
/// - **unknown**: no frame of the program or token was seen. Not a finding.
///
/// A log without call sites (recorded before version 3, or not closed cleanly) falls back to
/// adjacency: the cancel came during the subscribe call, or as the next call the program made
/// on that thread once it returned, with no mark in between; the message then says that the
/// cause was not recorded.
public struct CancelledImmediatelyRule: DiagnosisRule {
    public let code = "cancelled-immediately"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        lifecycles.lifecycles.compactMap { lifecycle in
            guard let subscription = lifecycle.subscription, let cancel = lifecycle.cancels.first,
                  lifecycle.completions.allSatisfy({ $0.seq > cancel }), lifecycle.valueCount(before: cancel) == 0,
                  lifecycles.isPipelineEnd(lifecycle), lifecycles.overlappedLifecycle(for: lifecycle) == nil,
                  let firstCall = lifecycle.subscribeCall ?? lifecycle.subscriptionCall,
                  let subscribe = lifecycles.calls.call(at: firstCall),
                  let cancelEvent = lifecycles.event(cancel), cancelEvent.thread == subscribe.thread,
                  !lifecycles.calls.enclosingCalls(of: cancel).contains(where: { isCancel($0, in: lifecycles) })
            else { return nil }
            if let site = lifecycles.trace.cancelSite(of: cancelEvent), site.cancelCause != nil {
                return droppedToken(
                    lifecycle, subscription: subscription, subscribe: subscribe, cancel: cancel, site: site, in: lifecycles
                )
            }
            return adjacentCancel(lifecycle, subscription: subscription, subscribe: subscribe, cancel: cancel, in: lifecycles)
        }
    }

    /// The finding when the log says who cancelled.
    private func droppedToken(
        _ lifecycle: Lifecycle, subscription: TraceObjectID, subscribe: TraceCall, cancel: UInt64,
        site: TraceCallSite, in lifecycles: TraceLifecycles
    ) -> Diagnosis? {
        let trace = lifecycles.trace
        guard site.cancelCause == .released, let released = site.location, let function = released.function,
              let made = subscribeSite(of: lifecycle, in: trace)?.location, made.function == function,
              !subscribedAgain(from: made, between: subscribe.begin, and: cancel, except: lifecycle, in: lifecycles)
        else { return nil }
        let subscriber = lifecycles.name(lifecycle.subscriber)
        let line = made.line.map { " at line \($0)" } ?? ""
        let upstream = UpstreamValues(lifecycle, after: subscribe.begin, before: cancel, in: lifecycles)
        return Diagnosis(
            code: code, severity: .warning,
            objects: [subscription, lifecycle.subscriber] + [lifecycle.publisher].compactMap { $0 },
            evidence: Array(Set([subscribe.begin, lifecycle.subscriptionCall, cancel, upstream?.first].compactMap { $0 }))
                .sorted(),
            message: "\(lifecycles.name(subscription)) was cancelled \(beforeAnyValue(upstream, reaching: subscriber)): "
                + "its AnyCancellable was released in \(released), the function that subscribed \(subscriber)\(line). The "
                + "function let go of the token it had just made, so the pipeline ended with the function.",
            fix: fix, hop: lifecycle.hop
        )
    }

    /// The finding for a log that does not say who cancelled: the cancel came during the
    /// subscribe call, or right after it on the same thread.
    private func adjacentCancel(
        _ lifecycle: Lifecycle, subscription: TraceObjectID, subscribe: TraceCall, cancel: UInt64,
        in lifecycles: TraceLifecycles
    ) -> Diagnosis? {
        guard let cancelEvent = lifecycles.event(cancel) else { return nil }
        let within = subscribe.isOpen(at: cancel)
        let rightAfter = lifecycles.calls.call(at: cancel)?.depth == 0
            && lifecycles.calls.topLevelCall(onThread: cancelEvent.thread, before: cancel)?.begin == subscribe.begin
            && !markedBetween(subscribe.end ?? cancel, cancel, onThread: cancelEvent.thread, in: lifecycles)
        guard within || rightAfter else { return nil }
        let subscriber = lifecycles.name(lifecycle.subscriber)
        let source = lifecycle.publisher.map { " to \(lifecycles.name($0))" } ?? ""
        let when = within ? "during the subscribe call that created it" : "right after \(subscriber) subscribed\(source)"
        let upstream = UpstreamValues(lifecycle, after: subscribe.begin, before: cancel, in: lifecycles)
        return Diagnosis(
            code: code, severity: .warning,
            objects: [subscription, lifecycle.subscriber] + [lifecycle.publisher].compactMap { $0 },
            evidence: Array(Set([subscribe.begin, lifecycle.subscriptionCall, within ? nil : subscribe.end, cancel,
                                 upstream?.first].compactMap { $0 })).sorted(),
            message: "\(lifecycles.name(subscription)) was cancelled \(when), \(beforeAnyValue(upstream, reaching: subscriber)): "
                + "the subscription was dropped as soon as it was made. (The log does not say who cancelled, so this "
                + "is judged by the cancel following the subscribe directly; a deliberate cancel() looks the same.)",
            fix: fix, hop: lifecycle.hop
        )
    }

    /// What had arrived when the cancel came: nothing at all, or values that reached a hop
    /// upstream (a `filter` that dropped them, a `receive(on:)` that had them on their way) but
    /// not the subscriber.
    private func beforeAnyValue(_ upstream: UpstreamValues?, reaching subscriber: String) -> String {
        guard let upstream else { return "before any value arrived" }
        let arrived = upstream.count == 1
            ? "1 value had reached \(upstream.receiver) upstream at @\(upstream.first) and had not been passed on"
            : "\(upstream.count) values had reached \(upstream.receiver) upstream, the first at @\(upstream.first), and "
                + "none had been passed on"
        return "before any value reached \(subscriber), though \(arrived)"
    }

    /// The values the nearest hop upstream that had any received between the subscribe call
    /// that made the pipeline and its cancel.
    private struct UpstreamValues {
        let receiver: String
        let count: Int
        let first: UInt64

        /// `nil` when no hop upstream in a single chain received a value in between; past a hop
        /// that merges several, values no longer belong to this pipeline alone.
        init?(_ lifecycle: Lifecycle, after subscribe: UInt64, before cancel: UInt64, in lifecycles: TraceLifecycles) {
            var current = lifecycle
            var seen: Set<Lifecycle.ID> = [lifecycle.id]
            while current.upstream.count == 1, seen.insert(current.upstream[0]).inserted {
                current = lifecycles.lifecycle(current.upstream[0])
                let received = current.deliveries.filter { $0.begin > subscribe && $0.begin < cancel }
                if let first = received.first {
                    receiver = lifecycles.name(current.subscriber)
                    count = received.count
                    self.first = first.begin
                    return
                }
            }
            return nil
        }
    }

    private var fix: String {
        "Keep the AnyCancellable that sink or assign returns for as long as you want values: store it in a "
            + "property or with .store(in: &cancellables); `_ = publisher.sink { }` and a local set cancel when the "
            + "function returns."
    }

    /// The call site of the top-level subscribe that made the lifecycle's pipeline.
    private func subscribeSite(of lifecycle: Lifecycle, in trace: Trace) -> TraceCallSite? {
        [lifecycle.subscriber, lifecycle.subscription].lazy
            .compactMap { $0.flatMap { trace.object($0)?.callSite }.flatMap { trace.callSites[$0] } }.first
    }

    /// Whether the same line subscribed another pipeline end between two events: then the
    /// release belongs to a later call of the function (a replaced token), not to the one
    /// that subscribed.
    private func subscribedAgain(
        from location: TraceSourceLocation, between start: UInt64, and end: UInt64, except lifecycle: Lifecycle,
        in lifecycles: TraceLifecycles
    ) -> Bool {
        lifecycles.lifecycles.contains { other in
            guard other.id != lifecycle.id, let call = other.subscribeCall, call > start, call < end,
                  lifecycles.isPipelineEnd(other) else { return false }
            return subscribeSite(of: other, in: lifecycles.trace)?.location == location
        }
    }

    /// Whether the program marked a point on `thread` between two events: a mark says it did
    /// something in between, so the cancel was not right after the subscribe.
    private func markedBetween(_ start: UInt64, _ end: UInt64, onThread thread: UInt64, in lifecycles: TraceLifecycles) -> Bool {
        // The events between, found by position: sequence numbers can be far apart (a damaged
        // log's seq of 2⁶³ − 1 made a loop over the numbers run for hours).
        let events = lifecycles.trace.events
        var low = 0, high = events.count
        while low < high {
            let middle = (low + high) / 2
            if events[middle].seq <= start { low = middle + 1 } else { high = middle }
        }
        return events[low...].prefix { $0.seq < end }.contains { event in
            guard event.thread == thread, case .mark = event.kind else { return false }
            return true
        }
    }

    private func isCancel(_ call: TraceCall, in lifecycles: TraceLifecycles) -> Bool {
        if case .cancel? = lifecycles.event(call.begin)?.kind { return true }
        return false
    }
}
