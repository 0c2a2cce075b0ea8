#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The sign-up screen: owns its form, redraws after each change of it (counted, as a SwiftUI
/// view would be invalidated), and shows the server's answer. Closing the screen releases the
/// form and ends every pipeline the form made.
final class SignUpScreen {
    let form: SignUpForm
    private(set) var redraws = 0
    private(set) var message: String?
    private var cancellables = Set<AnyCancellable>()

    init(server: AccountServer, queues: SettingsQueues) {
        form = SignUpForm(server: server, queues: queues)
        form.objectWillChange
            .sink { [weak self] in self?.redraws += 1 }
            .store(in: &cancellables)
        form.$outcome
            .compactMap { $0 }
            .map { outcome -> String in
                switch outcome {
                case .success(let name): return "Welcome, \(name)"
                case .failure(let refusal): return "Refused: \(refusal.reason)"
                }
            }
            .sink { [weak self] in self?.message = $0 }
            .store(in: &cancellables)
    }
}
