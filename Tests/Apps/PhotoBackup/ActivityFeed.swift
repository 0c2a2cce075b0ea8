import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The activity screen's list: a hand-written subscriber that shows at most three new lines per
/// refresh. It asks for three lines, returns `.none` for each, and when the screen refreshes
/// (on a repeating timer) asks for three more, on the activity queue where the lines arrive.
///
/// Correct, although it looks stalled between refreshes: the pause is on purpose, the lines
/// wait in a buffer upstream, and the next tick asks for more. The screen cancels it when it
/// closes.
final class ActivityFeed: Subscriber {
    typealias Input = String
    typealias Failure = Never

    /// How many lines one refresh shows.
    static let linesPerRefresh = 3

    private let queues: BackupQueues
    private let lock = NSLock()
    private var subscription: Subscription?
    private var shown: [String] = []
    private(set) var isFinished = false

    init(queues: BackupQueues) {
        self.queues = queues
    }

    /// The lines shown so far.
    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return shown
    }

    func receive(subscription: Subscription) {
        lock.lock()
        self.subscription = subscription
        lock.unlock()
        subscription.request(.max(Self.linesPerRefresh))
    }

    func receive(_ input: String) -> Subscribers.Demand {
        lock.lock()
        shown.append(input)
        lock.unlock()
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        lock.lock()
        isFinished = true
        subscription = nil
        lock.unlock()
    }

    /// Shows up to three more lines, asked for on the activity queue.
    func refresh() {
        queues.run(on: queues.activity, after: .milliseconds(0)) { [weak self] in
            guard let self else { return }
            self.lock.lock()
            let subscription = self.subscription
            self.lock.unlock()
            subscription?.request(.max(Self.linesPerRefresh))
        }
    }

    /// Stops showing lines.
    func cancel() {
        lock.lock()
        let subscription = self.subscription
        self.subscription = nil
        lock.unlock()
        subscription?.cancel()
    }
}
