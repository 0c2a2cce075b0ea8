import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The status bar: the bytes downloaded so far, the rate of the first few transfers, the
/// reachable mirrors, yesterday's downloads and the limit on parallel downloads.
///
/// Correct: the bandwidth feed is multicast through a subject to a running total and a
/// warm-up sampler, and connected only once both are subscribed; the sampler, an
/// `AnySubscriber`, asks for three samples, returns `.none` after each and cancels after the
/// third, as it wants no more; the history is a `Record` replayed through `autoconnect()`; the
/// limit is a `CurrentValueSubject` the settings sheet reads when it opens, long after it was set.
final class StatusBar: @unchecked Sendable {
    /// What the status bar shows; the bar's pipelines assign to it, not to the bar that owns them.
    let display = StatusDisplay()
    /// The most downloads that run at once, which the settings sheet shows; it applies from the
    /// next launch.
    let parallelLimit = CurrentValueSubject<Int, Never>(2)
    private var connection: Cancellable?
    private var subscriptions = Set<AnyCancellable>()

    init(server: MirrorServer, queues: DownloadQueues) {
        let bandwidth = server.bandwidth.multicast(subject: PassthroughSubject<Int, Never>())
        bandwidth
            .scan(0, +)
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .assign(to: \.totalBytes, on: display)
            .store(in: &subscriptions)
        var samples: [Int] = []
        var sampling: Subscription?
        bandwidth.subscribe(AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                sampling = subscription
                subscription.request(.max(3))
            },
            receiveValue: { [weak self] bytes in
                samples.append(bytes)
                guard samples.count == 3 else { return .none }
                self?.display.warmUpAverage = samples.reduce(0, +) / samples.count
                sampling?.cancel()
                sampling = nil
                return .none
            },
            receiveCompletion: { _ in sampling = nil }
        ))
        connection = bandwidth.connect()

        Record<String, Never>(output: ["readme.txt", "slides.key"], completion: .finished)
            .collect()
            .makeConnectable()
            .autoconnect()
            .assign(to: \.history, on: display)
            .store(in: &subscriptions)

        server.reachableMirrors()
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] mirrors in self?.display.mirrors = mirrors }
            .store(in: &subscriptions)
    }

    /// Opens the settings sheet, which shows the current limit.
    func openSettings() {
        parallelLimit
            .sink { [weak self] limit in self?.display.shownLimit = limit }
            .store(in: &subscriptions)
    }

    /// Stops counting bandwidth.
    func disconnect() {
        connection?.cancel()
        connection = nil
    }
}
