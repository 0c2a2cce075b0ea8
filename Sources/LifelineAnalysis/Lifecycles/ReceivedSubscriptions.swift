import LifelineLog

/// For each lifecycle, the same subscriber's lifecycles that had received a subscription
/// before it did: the one received just before, and the earliest one still running then.
///
/// Built once, in one pass per subscriber over its lifecycles in the order they received
/// their subscriptions, so that a subscriber subscribed again and again (as `retry` does, ten
/// thousand times) costs time in proportion to its lifecycles, not to their square.
struct ReceivedSubscriptions: Sendable {
    /// The lifecycle that received a subscription just before each lifecycle did.
    private(set) var previous: [Lifecycle.ID: Lifecycle.ID] = [:]
    /// The earliest lifecycle that received a subscription before each lifecycle did and was
    /// still running (neither completed, cancelled nor dead) when it did.
    private(set) var overlapped: [Lifecycle.ID: Lifecycle.ID] = [:]

    /// Indexes `lifecycles`, whose subscribers' and subscriptions' deaths are `deallocations`.
    init(_ lifecycles: [Lifecycle], deallocations: [TraceObjectID: Deallocation]) {
        let received = lifecycles.filter { $0.subscriptionCall != nil }
        let bySubscriber = Dictionary(grouping: received, by: \.subscriber)
        for subscriber in bySubscriber.keys.sorted() {
            let ordered = bySubscriber[subscriber]!.sorted { $0.subscriptionCall! < $1.subscriptionCall! }
            // The lifecycles received so far, in order; those before `first` had stopped
            // running by the time a later one received its subscription, and stay stopped.
            var running: [(id: Lifecycle.ID, stop: UInt64)] = []
            var first = 0
            for lifecycle in ordered {
                let call = lifecycle.subscriptionCall!
                if let last = running.last { previous[lifecycle.id] = last.id }
                while first < running.count, running[first].stop < call { first += 1 }
                if first < running.count { overlapped[lifecycle.id] = running[first].id }
                running.append((lifecycle.id, Self.stop(of: lifecycle, deallocations: deallocations)))
            }
        }
    }

    /// The first event after which a lifecycle no longer runs: its completion or cancel, or
    /// the death of its subscriber or subscription, whichever came first.
    private static func stop(of lifecycle: Lifecycle, deallocations: [TraceObjectID: Deallocation]) -> UInt64 {
        let deaths = [lifecycle.subscriber, lifecycle.subscription].compactMap { $0 }.compactMap { deallocations[$0]?.seq }
        return ([lifecycle.end].compactMap { $0 } + deaths).min() ?? .max
    }
}
