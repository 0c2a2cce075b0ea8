#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The profile screen: owns its model and redraws when the model changes.
final class ProfileScreen {
    let model: ProfileModel
    private(set) var redraws = 0
    private var cancellables = Set<AnyCancellable>()

    init(server: AccountServer, queues: SettingsQueues) {
        model = ProfileModel(server: server, queues: queues)
        model.objectWillChange
            .sink { [weak self] in self?.redraws += 1 }
            .store(in: &cancellables)
    }
}
