import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The inbox: the pinned chats' previews, shown once both histories are read (merged, then
/// `collect()`), and every incoming message merged into one stream for the unread badge.
///
/// OpenCombine has no `merge`, so the streams are merged the way apps did before it:
/// `[a, b].publisher.flatMap { $0 }`.
///
/// Not `Zip`: in OpenCombine 0.14 a `Zip`'s inner subscribers hold it unowned, and a `Zip`
/// of two `Future`s finishes on the second value, before that `Future` sends its completion.
/// When the UI queue let the finished `Zip` go first, the completion reached a destroyed
/// `Zip` and the app crashed ("Attempted to read an unowned reference"), untraced, in about
/// one run in eleven.
///
/// Correct: the preview's token is stored and its sink holds `self` weakly; the badge is a
/// subscriber that keeps its own subscription, and the app cancels it when it closes.
final class InboxModel {
    private(set) var pinnedPreview = ""
    let badge = UnreadBadge()
    private var cancellables = Set<AnyCancellable>()

    init(server: ChatServer, queues: ChatQueues) {
        [server.history(of: "ada"), server.history(of: "grace")].publisher
            .flatMap { $0 }
            .collect()
            .map { histories in
                ["ada", "grace"].map { name in histories.first { $0.first?.conversation == name }?.last?.text ?? "" }
                    .joined(separator: " · ")
            }
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] preview in self?.pinnedPreview = preview }
            .store(in: &cancellables)

        server.incoming.keys.sorted().compactMap { server.incoming[$0] }
            .publisher
            .flatMap { $0 }
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .subscribe(badge)
    }

    /// Stops the badge, as the app does when it closes.
    func close() {
        badge.cancel()
    }
}
