import AppMutations
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The sign-up screen: owns its form and passes the form's changes on as its own (a parent
/// `ObservableObject` forwarding a child's `objectWillChange`, as SwiftUI needs for nested
/// models), redraws after each change (counted, as a SwiftUI view would be invalidated), and
/// shows the server's answer. Closing the screen releases the form and ends every pipeline the
/// form made.
final class SignUpScreen: ObservableObject {
    let form: SignUpForm
    private(set) var redraws = 0
    @Published private(set) var message: String?
    private var cancellables = Set<AnyCancellable>()

    init(server: AccountServer, queues: SettingsQueues, mutation: AppMutation = .none) {
        form = SignUpForm(server: server, queues: queues, mutation: mutation)
        form.objectWillChange
            .sink { [weak self] in self?.objectWillChange.send() }
            .store(in: &cancellables)
        objectWillChange
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
