import LifelineLog

/// Finds an operator that subscribes to the same publisher again with each value it receives
/// and keeps the subscriptions it made before: a `flatMap { _ in service.updates }` over a
/// subject that never completes, as a refresh button drives it. Each refresh adds one more
/// inner subscription, and every value the publisher sends reaches the pipeline once per
/// subscription: after three refreshes, three times.
///
/// A subscription made during a value's delivery to a subscriber is that subscriber's (the
/// operator's) inner subscription: the log nests the `subscribe` call inside the
/// `receive(_:)` call. Reported when ``minimumCount`` or more inner subscriptions of one
/// operator to one publisher were all running once the last of them was made, and none of them
/// then completed or was cancelled before the operator's own teardown (the outermost call that
/// ended its subscription, which cancels its inner ones too) or the end of the log. A `flatMap`
/// whose inner publishers complete, a `switchToLatest()` (which cancels the previous inner
/// subscription), or inner subscriptions to different publishers are not reported.
public struct GrowingSubscriptionsRule: DiagnosisRule {
    public let code = "growing-subscriptions"

    /// How many inner subscriptions to one publisher running together make growth: the
    /// pipeline has grown twice.
    public static let minimumCount = 3

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        // Inner subscriptions by operator and publisher, in log order.
        var inner: [Pair: [Lifecycle]] = [:]
        var order: [Pair] = []
        for lifecycle in lifecycles.lifecycles {
            guard let subscribe = lifecycle.subscribeCall, let publisher = lifecycle.publisher,
                  let delivery = lifecycles.calls.firstEnclosingCall(of: subscribe, where: { call in
                      if case .value? = lifecycles.event(call.begin)?.kind { return true }
                      return false
                  }),
                  case .value(let operatorObject, _, _)? = lifecycles.event(delivery.begin)?.kind
            else { continue }
            let pair = Pair(operatorObject: operatorObject, publisher: publisher)
            if inner[pair] == nil { order.append(pair) }
            inner[pair, default: []].append(lifecycle)
        }
        return order.compactMap { pair in
            diagnosis(pair, inner: inner[pair] ?? [], lifecycles: lifecycles)
        }
    }

    /// An operator and the publisher it subscribed to inside its deliveries.
    private struct Pair: Hashable {
        let operatorObject: TraceObjectID
        let publisher: TraceObjectID
    }

    private func diagnosis(_ pair: Pair, inner: [Lifecycle], lifecycles: TraceLifecycles) -> Diagnosis? {
        // The inner subscriptions running together when the last was made, each kept until the
        // operator's teardown (or to the end of the log): the outermost call that ended the
        // operator's own subscription, which cancels its inner ones in the same call, before or
        // after its upstream's.
        guard let last = inner.last?.subscribeCall else { return nil }
        let made = lifecycles.calls.call(at: last)?.end ?? last
        let teardown = lifecycles.lifecycles(ofSubscriber: pair.operatorObject).last?.end.map { end in
            lifecycles.calls.enclosingCalls(of: end).last?.begin ?? end
        } ?? .max
        let together = inner.filter { lifecycle in
            guard lifecycle.state(before: made + 1) == .subscribed, lifecycle.completions.isEmpty else { return false }
            return lifecycle.cancels.first.map { $0 >= teardown } ?? true
        }
        guard together.count >= Self.minimumCount else { return nil }
        let subscribes = together.compactMap(\.subscribeCall)
        // One value the publisher sent after the last inner subscription, as each of them got it.
        let repeated = together.compactMap { lifecycle in lifecycle.deliveries.first { $0.begin > last }?.begin }.sorted()
        let cited = subscribes.prefix(5).map { "@\($0)" }.joined(separator: ", ") + (subscribes.count > 5 ? ", …" : "")
        let operatorName = lifecycles.name(pair.operatorObject), publisherName = lifecycles.name(pair.publisher)
        var message = "\(operatorName) subscribed to \(publisherName) again with each of \(together.count) values it received "
            + "(\(cited)), and kept them all running: the pipeline grew by one subscription each "
            + "time, and every value \(publisherName) sends reaches it once per subscription."
        if repeated.count > 1 {
            message += " After the last one, \(repeated.count) subscriptions each received the next value "
                + "(\(repeated.prefix(5).map { "@\($0)" }.joined(separator: ", "))\(repeated.count > 5 ? ", …" : ""))."
        }
        let hop = lifecycles.lifecycles(ofSubscriber: pair.operatorObject).last?.hop
        return Diagnosis(
            code: code, severity: .warning,
            objects: [pair.operatorObject, pair.publisher] + together.map(\.subscriber),
            evidence: Array(subscribes.prefix(5)) + Array(repeated.prefix(5)),
            message: message,
            fix: "Subscribe to \(publisherName) once, outside the operator's closure, or end each inner subscription before "
                + "the next: `map { … }.switchToLatest()` cancels the previous one, and `first()` or `prefix(1)` on the inner "
                + "publisher ends each after its value.",
            hop: hop
        )
    }
}

