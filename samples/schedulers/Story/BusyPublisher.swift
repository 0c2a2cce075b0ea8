import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The seed's `BusyPublisher`: it blocks the thread that subscribes to it, then hands out
/// `Subscriptions.empty`, sends 1 and finishes, all inside `receive(subscriber:)`.
///
/// Like the seed's, it does not wait for demand: it sends its value whether or not the
/// subscriber has requested anything yet. It is busy for 50 ms instead of the seed's 5 s.
struct BusyPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    /// How long it blocks the subscribing thread.
    static let busyTime: TimeInterval = 0.05

    let console: SampleConsole

    func receive<S>(subscriber: S) where S: Subscriber, Never == S.Failure, Int == S.Input {
        console.print("BusyPublisher is busy for 50 ms on \(SampleQueue.currentPlace)")
        Thread.sleep(forTimeInterval: Self.busyTime)
        subscriber.receive(subscription: Subscriptions.empty)
        _ = subscriber.receive(1)
        subscriber.receive(completion: .finished)
    }
}
