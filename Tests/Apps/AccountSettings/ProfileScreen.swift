import AppMutations
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The profile screen: owns its model and redraws when the model changes. When it opens it
/// loads the user's name, then their preferences (`flatMap`), waits for the session token (the
/// first one the session has, through `first()`), and loads the avatars of the user's
/// contacts, each load kept under its own key until it completes, as apps track requests in
/// flight; a refresh loads them again, some from the cache. It counts the server's status
/// lines until it closes (`prefix(untilOutputFrom:)`).
final class ProfileScreen {
    let model: ProfileModel
    private(set) var redraws = 0
    private(set) var header: String?
    private(set) var token: String?
    private(set) var avatars: [String] = []
    private var cancellables = Set<AnyCancellable>()
    private var avatarLoads: [UUID: AnyCancellable] = [:]
    /// Sent when the screen closes: ends what the screen shows of the status lines.
    private let closing = PassthroughSubject<Void, Never>()
    private(set) var statusLinesSeen = 0
    private let avatarCache: AvatarCache

    init(
        user: String, contacts: [String], server: AccountServer, avatars: AvatarCache, queues: SettingsQueues,
        mutation: AppMutation = .none
    ) {
        model = ProfileModel(server: server, queues: queues)
        avatarCache = avatars
        switch mutation {
        case .strongSelf:
            model.objectWillChange
                .sink { self.redraws += 1 } // seeded: strong-self
                .store(in: &cancellables)
        case .droppedStore:
            _ = model.objectWillChange.sink { [weak self] in self?.redraws += 1 } // seeded: dropped-store
        default:
            model.objectWillChange
                .sink { [weak self] in self?.redraws += 1 }
                .store(in: &cancellables)
        }

        // One after the other: OpenCombine's zip holds its children unowned, and a Future's
        // completion that reaches a child after the zip finished crashes the app.
        server.details(of: user)
            .flatMap { name in server.preferences(of: user).map { (name, $0) } }
            .subscribe(on: queues.network, options: queues.schedulerOptions)
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] name, preferences in
                self?.header = "\(name) · \(preferences.joined(separator: ", "))"
            }
            .store(in: &cancellables)

        server.statusLines
            .prefix(untilOutputFrom: closing)
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] in self?.statusLinesSeen += 1; _ = $0 }
            .store(in: &cancellables)

        server.session
            .compactMap { $0 }
            .first()
            .sink { [weak self] in self?.token = $0 }
            .store(in: &cancellables)

        loadAvatars(of: contacts)
    }

    /// Loads each contact's avatar, keeping each load under its own key until it completes.
    func loadAvatars(of contacts: [String]) {
        for contact in contacts {
            let load = UUID()
            var finished = false
            let subscription = avatarCache.avatar(of: contact)
                .sink(
                    receiveCompletion: { [weak self] _ in
                        finished = true
                        self?.avatarLoads[load] = nil
                    },
                    receiveValue: { [weak self] in self?.avatars.append($0) }
                )
            // A cached avatar completes inside sink(): there is nothing left to keep.
            if !finished { avatarLoads[load] = subscription }
        }
    }

    /// Closes the screen: the status lines it shows end (`prefix(untilOutputFrom:)`).
    func close() {
        closing.send()
    }

    /// How many avatar loads are still running.
    var loadsInFlight: Int { avatarLoads.count }
}
