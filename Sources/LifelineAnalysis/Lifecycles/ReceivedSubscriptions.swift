import LifelineLog

/// For each lifecycle, the same subscriber's lifecycles that had received a subscription
/// before it did: the one received just before, and the earliest one still running then.
///
/// Built once, in one pass per subscriber over its lifecycles in the order they received
/// their subscriptions, so that a subscriber subscribed again and again (as `retry` does, ten
/// thousand times) costs time in proportion to its lifecycles, not to their square.
struct ReceivedSubscriptions: Sendable {
    /// By lifecycle number: the lifecycle that received a subscription just before it did, or -1.
    private var previousIDs: [Int32] = []
    /// By lifecycle number: the earliest lifecycle that received a subscription before it did
    /// and was still running (neither completed, cancelled nor dead) when it did, or -1.
    private var overlappedIDs: [Int32] = []

    /// Indexes `lifecycles`, whose subscribers' and subscriptions' deaths are `deallocations`.
    init(_ lifecycles: [Lifecycle], deallocations: [TraceObjectID: Deallocation]) {
        previousIDs = [Int32](repeating: -1, count: lifecycles.count)
        overlappedIDs = previousIDs
        var bySubscriber: [TraceObjectID: [Int]] = [:]
        for (index, lifecycle) in lifecycles.enumerated() where lifecycle.subscriptionCall != nil {
            bySubscriber[lifecycle.subscriber, default: []].append(index)
        }
        for subscriber in bySubscriber.keys.sorted() {
            let ordered = bySubscriber[subscriber]!.sorted {
                (lifecycles[$0].subscriptionCall!, $0) < (lifecycles[$1].subscriptionCall!, $1)
            }
            // The lifecycles received so far, in order; those before `first` had stopped
            // running by the time a later one received its subscription, and stay stopped.
            var running: [(index: Int, stop: UInt64)] = []
            var first = 0
            for index in ordered {
                let call = lifecycles[index].subscriptionCall!
                if let last = running.last { previousIDs[index] = Int32(last.index) }
                while first < running.count, running[first].stop < call { first += 1 }
                if first < running.count { overlappedIDs[index] = Int32(running[first].index) }
                running.append((index, Self.stop(of: lifecycles[index], deallocations: deallocations)))
            }
        }
    }

    /// The lifecycle that received a subscription just before lifecycle `id` did.
    func previous(_ id: Lifecycle.ID) -> Lifecycle.ID? {
        id.rawValue < previousIDs.count && previousIDs[id.rawValue] >= 0 ? Lifecycle.ID(Int(previousIDs[id.rawValue])) : nil
    }

    /// The earliest lifecycle still running when lifecycle `id` received its subscription.
    func overlapped(_ id: Lifecycle.ID) -> Lifecycle.ID? {
        id.rawValue < overlappedIDs.count && overlappedIDs[id.rawValue] >= 0 ? Lifecycle.ID(Int(overlappedIDs[id.rawValue])) : nil
    }

    /// The first event after which a lifecycle no longer runs: its completion or cancel, or
    /// the death of its subscriber or subscription, whichever came first.
    private static func stop(of lifecycle: Lifecycle, deallocations: [TraceObjectID: Deallocation]) -> UInt64 {
        let deaths = [lifecycle.subscriber, lifecycle.subscription].compactMap { $0 }.compactMap { deallocations[$0]?.seq }
        return ([lifecycle.end].compactMap { $0 } + deaths).min() ?? .max
    }
}
