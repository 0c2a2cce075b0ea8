import Foundation

/// The banner over the list that shows the latest price cut on something the shopper wants:
/// a helper object the list's view model owns, reading ``DealsFeed``'s stream in a `Task`.
/// Correct: the task captures the banner weakly and the banner cancels it when it goes away,
/// which ends the stream and, through its `onTermination`, the sink.
final class DealsBanner: @unchecked Sendable {
    private(set) var text: String?
    private var task: Task<Void, Never>?
    private let queues: GroceryQueues

    init(feed: DealsFeed, store: ListStore, queues: GroceryQueues) {
        self.queues = queues
        let stream = feed.deals { name in store.items.value.contains { $0.name == name } }
        task = Task { [weak self] in
            for await deal in stream {
                self?.show(deal)
            }
        }
    }

    deinit {
        task?.cancel()
    }

    private func show(_ deal: Deal) {
        queues.ui.async { self.text = "\(deal.percentOff)% off \(deal.name)" }
    }
}
