import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Keeps what the user typed when the app goes to the background: listens for the app's
/// resign-active notification through `NotificationCenter`'s publisher and saves on the disk
/// queue. It lives as long as the app and is cancelled when the app quits.
final class DraftStore: @unchecked Sendable {
    /// Posted when the app goes to the background.
    static let willResignActive = Notification.Name("AccountSettings.willResignActive")

    private let lock = NSLock()
    private var drafts: [String] = []
    private var subscription: AnyCancellable?

    /// Starts listening; `currentDraft` is asked on the disk queue for what to save.
    func start(queues: SettingsQueues, currentDraft: @escaping @Sendable () -> String?) {
        subscription = NotificationCenter.default.publisher(for: Self.willResignActive)
            .receive(on: queues.disk, options: queues.schedulerOptions)
            .compactMap { _ in currentDraft() }
            .sink { [weak self] in self?.save($0) }
    }

    /// Stops listening.
    func stop() {
        subscription = nil
    }

    /// The drafts saved so far.
    var saved: [String] {
        lock.lock()
        defer { lock.unlock() }
        return drafts
    }

    private func save(_ draft: String) {
        lock.lock()
        drafts.append(draft)
        lock.unlock()
    }
}
