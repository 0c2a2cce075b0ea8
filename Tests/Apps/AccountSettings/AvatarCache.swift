import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Avatars the app has already fetched: a hit is answered at once with `Just`, a miss by the
/// server, delivered on the UI queue and kept for next time.
final class AvatarCache: @unchecked Sendable {
    private let server: AccountServer
    private let queues: SettingsQueues
    private let lock = NSLock()
    private var avatars: [String: String] = [:]

    init(server: AccountServer, queues: SettingsQueues) {
        self.server = server
        self.queues = queues
    }

    /// `name`'s avatar: at once from the cache, or fetched.
    func avatar(of name: String) -> AnyPublisher<String, Never> {
        lock.lock()
        let cached = avatars[name]
        lock.unlock()
        if let cached { return Just(cached).eraseToAnyPublisher() }
        return server.avatar(of: name)
            .handleEvents(receiveOutput: { [weak self] avatar in self?.keep(avatar, for: name) })
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .eraseToAnyPublisher()
    }

    private func keep(_ avatar: String, for name: String) {
        lock.lock()
        avatars[name] = avatar
        lock.unlock()
    }
}
