import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The activity screen: every line the app logs, from three queues, serialized on the activity
/// queue with `receive(on:)` and kept in a buffer of the latest twenty (`buffer(size:prefetch:
/// whenFull:)`) until the ``ActivityFeed`` asks for them; a `Timer.publish` refreshes the feed.
///
/// Correct: the lines reach the buffer and the feed only on the serial activity queue, the
/// timer's token is stored, and ``close()`` cancels both the timer and the feed.
final class ActivityModel {
    let feed: ActivityFeed
    private var cancellables = Set<AnyCancellable>()

    init(activity: ActivityLog, queues: BackupQueues) {
        feed = ActivityFeed(queues: queues)
        activity.lines
            .receive(on: queues.activity, options: queues.schedulerOptions)
            .buffer(size: 20, prefetch: .byRequest, whenFull: .dropOldest)
            .subscribe(feed)

        Timer.publish(every: 0.01, on: queues.timerThread.runLoop, in: .default)
            .autoconnect()
            .sink { [feed] _ in feed.refresh() }
            .store(in: &cancellables)
    }

    /// Closes the screen.
    func close() {
        cancellables.removeAll()
        feed.cancel()
    }
}
