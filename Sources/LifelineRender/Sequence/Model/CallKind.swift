import LifelineLog

/// What a call between two lanes was, as a sequence diagram names it.
enum CallKind: Hashable, Sendable {
    /// `publisher.subscribe(subscriber)`.
    case subscribe
    /// `subscriber.receive(subscription:)`.
    case receiveSubscription
    /// `subscription.request(demand)`.
    case request(TraceDemand)
    /// `subscriber.receive(value)`, with the value's description when it was recorded.
    case value(String?)
    /// `subscriber.receive(completion:)`.
    case completion(TraceEvent.Completion)
    /// `subscription.cancel()`.
    case cancel

    /// The message written on the arrow.
    func label(valueLimit: Int) -> String {
        switch self {
        case .subscribe: return "subscribe"
        case .receiveSubscription: return "receive(subscription:)"
        case .request(let demand): return "request(\(Self.name(of: demand)))"
        case .value(let value?): return "receive(\(DisplayText(value, limit: valueLimit).short))"
        case .value(nil): return "receive(value)"
        case .completion(.finished): return "receive(completion: .finished)"
        case .completion(.failure(let error)):
            return "receive(completion: .failure(\(DisplayText(error, limit: valueLimit).short)))"
        case .cancel: return "cancel()"
        }
    }

    /// The full message, nothing shortened (control characters still made visible).
    var fullLabel: String { label(valueLimit: .max) }

    /// The same call with the value's text left out, so that deliveries of different values
    /// compare equal when looking for runs to fold.
    var shape: CallKind {
        if case .value = self { return .value(nil) }
        return self
    }

    /// Whether this is a value delivery.
    var isValue: Bool {
        if case .value = self { return true }
        return false
    }

    /// A demand as Combine spells it: `.max(2)`, `.unlimited`, `.none`.
    static func name(of demand: TraceDemand) -> String {
        switch demand {
        case .max(0): return ".none"
        case .max(let count): return ".max(\(count))"
        case .unlimited: return ".unlimited"
        }
    }
}
