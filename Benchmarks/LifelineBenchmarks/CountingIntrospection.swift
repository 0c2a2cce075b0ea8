#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// OpenCombine's own floor for automatic mode: a hook handler that only counts.
final class CountingIntrospection: _Introspection, @unchecked Sendable {
    var events = 0
    func willReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S) where P.Failure == S.Failure, P.Output == S.Input { events += 1 }
    func didReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S) where P.Failure == S.Failure, P.Output == S.Input { events += 1 }
    func willReceive<S: Subscriber>(subscriber: S, subscription: Subscription) { events += 1 }
    func didReceive<S: Subscriber>(subscriber: S, subscription: Subscription) { events += 1 }
    func willReceive<S: Subscriber>(subscriber: S, input: S.Input) { events += 1 }
    func didReceive<S: Subscriber>(subscriber: S, input: S.Input, resultingDemand: Subscribers.Demand) { events += 1 }
    func willReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>) { events += 1 }
    func didReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>) { events += 1 }
    func willRequest(subscription: Subscription, _ demand: Subscribers.Demand) { events += 1 }
    func didRequest(subscription: Subscription, _ demand: Subscribers.Demand) { events += 1 }
    func willCancel(subscription: Subscription) { events += 1 }
    func didCancel(subscription: Subscription) { events += 1 }
}
