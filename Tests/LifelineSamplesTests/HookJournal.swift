import Foundation
import OpenCombineShim

/// The oracle for the samples' handshake tests: a second `_Introspection` handler, written
/// independently of Lifeline's recorder, that writes down every hook call with its thread,
/// the objects' runtime type names and the demand.
final class HookJournal: _Introspection, @unchecked Sendable {
    /// One hook call, in words both sides of the comparison can produce.
    struct Entry: Hashable, CustomStringConvertible {
        let thread: UInt64
        let call: String

        var description: String { "[\(thread)] \(call)" }
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    var calls: [Entry] { lock.withLock { entries } }

    private func note(_ call: String) {
        let entry = Entry(thread: Self.kernelThreadID(), call: call)
        lock.withLock { entries.append(entry) }
    }

    /// The kernel's id of the calling thread, read from /proc/thread-self (`<pid>/task/<tid>`).
    static func kernelThreadID() -> UInt64 {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        return link.split(separator: "/").last.flatMap { UInt64($0) } ?? 0
    }

    /// The type name the way a person would write it: private contexts print with an address
    /// that changes from run to run.
    static func typeName(of value: Any) -> String {
        String(reflecting: type(of: value)).replacingOccurrences(
            of: #"\(unknown context at \$[0-9a-f]+\)"#, with: "(private)", options: .regularExpression
        )
    }

    static func demand(_ demand: Subscribers.Demand) -> String {
        demand.max.map { "max(\($0))" } ?? "unlimited"
    }

    func willReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S) where P.Failure == S.Failure, P.Output == S.Input {
        note("begin subscribe \(Self.typeName(of: publisher)) ← \(Self.typeName(of: subscriber))")
    }

    func didReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S) where P.Failure == S.Failure, P.Output == S.Input {
        note("end subscribe \(Self.typeName(of: publisher)) ← \(Self.typeName(of: subscriber))")
    }

    func willReceive<S: Subscriber>(subscriber: S, subscription: Subscription) {
        note("begin receive_subscription \(Self.typeName(of: subscriber)) ← \(Self.typeName(of: subscription))")
    }

    func didReceive<S: Subscriber>(subscriber: S, subscription: Subscription) {
        note("end receive_subscription \(Self.typeName(of: subscriber)) ← \(Self.typeName(of: subscription))")
    }

    func willReceive<S: Subscriber>(subscriber: S, input: S.Input) {
        note("begin value \(Self.typeName(of: subscriber))")
    }

    func didReceive<S: Subscriber>(subscriber: S, input: S.Input, resultingDemand: Subscribers.Demand) {
        note("end value \(Self.typeName(of: subscriber)) → \(Self.demand(resultingDemand))")
    }

    func willReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>) {
        note("begin completion \(Self.typeName(of: subscriber)) \(Self.completion(completion))")
    }

    func didReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>) {
        note("end completion \(Self.typeName(of: subscriber)) \(Self.completion(completion))")
    }

    func willRequest(subscription: Subscription, _ demand: Subscribers.Demand) {
        note("begin request \(Self.typeName(of: subscription)) \(Self.demand(demand))")
    }

    func didRequest(subscription: Subscription, _ demand: Subscribers.Demand) {
        note("end request \(Self.typeName(of: subscription)) \(Self.demand(demand))")
    }

    func willCancel(subscription: Subscription) {
        note("begin cancel \(Self.typeName(of: subscription))")
    }

    func didCancel(subscription: Subscription) {
        note("end cancel \(Self.typeName(of: subscription))")
    }

    private static func completion<Failure>(_ completion: Subscribers.Completion<Failure>) -> String {
        switch completion {
        case .finished: return "finished"
        case .failure(let error): return "failure(\(error))"
        }
    }
}
