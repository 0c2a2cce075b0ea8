#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The profile screen's model: shows the server's latest status line.
///
/// **Its bug:** it keeps the status with `assign(to: \.status, on: self)` and stores the
/// cancellable in its own `cancellables`. `Subscribers.Assign` holds its object strongly, so
/// the model holds the subscriber that holds the model, and the model outlives the screen that
/// owned it: it keeps taking status lines for a screen nobody sees. The fix is
/// `.assign(to: &$status)`, which ends with the model, as ``SignUpForm`` does.
final class ProfileModel: ObservableObject {
    @Published private(set) var status = ""
    private var cancellables = Set<AnyCancellable>()

    init(server: AccountServer, queues: SettingsQueues) {
        server.statusLines
            .map { "Status: \($0)" }
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .assign(to: \.status, on: self)
            .store(in: &cancellables)
    }
}
