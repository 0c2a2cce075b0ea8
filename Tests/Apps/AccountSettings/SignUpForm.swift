import AppMutations
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The sign-up screen's model, as a SwiftUI view model is written: the fields the user types
/// into are `@Published`, and what the screen shows of them is derived by pipelines that
/// `assign(to:)` into other `@Published` properties, which end when the model goes, without any
/// `AnyCancellable`.
///
/// - The user name is checked with the server once typing pauses (`debounce`), and only the
///   latest check counts (`switchToLatest`).
/// - The password is rated as it is typed; a password that cannot be used is rated
///   `.tooShort` through `tryMap` and `catch` inside a `flatMap`, so that one refusal does not
///   end the rating.
/// - Whether the form can be sent is worked out after each change (`objectWillChange`, then
///   `receive(on:)` to read the changed values).
/// - Sending goes one request at a time (`flatMap(maxPublishers: .max(1))`).
/// - Each edit of the e-mail address looks up suggestions, replacing the lookup before: a
///   lookup whose answer has not come is cancelled when its `AnyCancellable` is replaced. A
///   `handleEvents` counts the lookups under way, for a spinner.
///
/// All of it is correct: every pipeline ends when the form is released.
final class SignUpForm: ObservableObject {
    /// How long typing must pause before the user name is checked.
    static let typingPause = DispatchTimeInterval.milliseconds(30)

    @Published var userName = ""
    @Published var password = ""
    @Published var email = ""
    @Published private(set) var availability = Availability.unknown
    @Published private(set) var strength = PasswordStrength.tooShort
    @Published private(set) var canSend = false
    @Published private(set) var outcome: Result<String, AccountServer.Refusal>?
    @Published private(set) var suggestions: [String] = []

    private let queues: SettingsQueues
    private let server: AccountServer
    /// The lookup of address suggestions for what the e-mail field holds: each edit replaces
    /// it, which cancels the one before if its answer has not come, as only the latest counts.
    private var suggestionLookup: AnyCancellable?
    private let lookupLock = NSLock()
    private var lookupsUnderWay = 0
    private let sends = PassthroughSubject<(name: String, email: String), Never>()
    private var cancellables = Set<AnyCancellable>()

    init(server: AccountServer, queues: SettingsQueues, mutation: AppMutation = .none) {
        self.queues = queues
        self.server = server
        $userName
            .debounce(for: .init(Self.typingPause), scheduler: queues.ui, options: queues.schedulerOptions)
            .removeDuplicates()
            .map { name -> AnyPublisher<Availability, Never> in
                name.count < 3 ? Just(.unknown).eraseToAnyPublisher() : server.availability(of: name)
            }
            .switchToLatest()
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .assign(to: &$availability)

        if mutation != .endlessInner {
            $password
                .flatMap { password in
                    Just(password)
                        .tryMap { try PasswordStrength(rating: $0) }
                        .catch { _ in Just(PasswordStrength.tooShort) }
                }
                .removeDuplicates()
                .assign(to: &$strength)
        } else {
            $password
                .flatMap { password in
                    server.minimumPasswordLength.map { minimum -> PasswordStrength in
                        password.count < minimum ? .tooShort : (try? PasswordStrength(rating: password)) ?? .tooShort
                    }
                }
                .removeDuplicates()
                .assign(to: &$strength) // seeded: endless-inner, by the flatMap above
        }

        objectWillChange
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] in self?.updateCanSend() }
            .store(in: &cancellables)

        $email
            .dropFirst()
            .sink { [weak self] in self?.lookUpSuggestions(for: $0) }
            .store(in: &cancellables)

        sends
            .flatMap(maxPublishers: .max(1)) { form in
                server.register(name: form.name, email: form.email)
                    .map { Result<String, AccountServer.Refusal>.success($0) }
                    .catch { Just(.failure($0)) }
            }
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] in self?.outcome = $0 }
            .store(in: &cancellables)
    }

    /// Sends the form, if it can be sent. Call on the UI queue.
    func send() {
        guard canSend else { return }
        sends.send((userName, email))
    }

    private func lookUpSuggestions(for typed: String) {
        suggestionLookup = server.suggestions(for: typed)
            .handleEvents(
                receiveSubscription: { [weak self] _ in self?.lookingUp(true) },
                receiveCompletion: { [weak self] _ in self?.lookingUp(false) },
                receiveCancel: { [weak self] in self?.lookingUp(false) }
            )
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] in self?.suggestions = $0 }
    }

    /// Counts the lookups under way, for the field's spinner; called on any queue.
    private func lookingUp(_ started: Bool) {
        lookupLock.lock()
        lookupsUnderWay += started ? 1 : -1
        lookupLock.unlock()
    }

    private func updateCanSend() {
        let ready = availability == .available && strength != .tooShort && !email.isEmpty
        if ready != canSend { canSend = ready }
    }
}
