import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The simulated account server: answers on the network queue after a short delay, like a
/// round trip, and pushes status lines for the profile screen.
///
/// Each answer is subscribed to on the network queue (`subscribe(on:)`), where it is also
/// fulfilled: a `Future` fulfilled on one queue while another is still subscribing to it can
/// deliver its result before the subscription has been handed over (OpenCombine hands it over
/// outside its lock), which Lifeline reports as `concurrent-delivery`.
final class AccountServer: @unchecked Sendable {
    /// Why the server refused a registration.
    struct Refusal: Error, Equatable {
        let reason: String
    }

    private let queues: SettingsQueues
    private let takenNames: Set<String> = ["alice", "bob"]
    private let lock = NSLock()
    private var registered: [String] = []
    /// Status lines for signed-in users, pushed by the server on the network queue. The stream
    /// never ends while the app runs.
    let statusLines = PassthroughSubject<String, Never>()
    /// The signed-in user's session token, once there is one; set on the network queue.
    let session = CurrentValueSubject<String?, Never>(nil)
    /// The shortest password the server accepts; it may change while the app runs, and never
    /// ends.
    let minimumPasswordLength = CurrentValueSubject<Int, Never>(8)

    init(queues: SettingsQueues) {
        self.queues = queues
    }

    /// Whether `name` is free, asked when something subscribes.
    func availability(of name: String) -> AnyPublisher<Availability, Never> {
        let queues = queues
        let taken = takenNames.contains(name.lowercased())
        return Deferred {
            Future<Availability, Never> { promise in
                queues.run(on: queues.network, after: .milliseconds(15)) {
                    promise(.success(taken ? .taken : .available))
                }
            }
        }
        .subscribe(on: queues.network, options: queues.schedulerOptions)
        .eraseToAnyPublisher()
    }

    /// Addresses the server suggests for what was typed into the e-mail field, after a round
    /// trip.
    func suggestions(for typed: String) -> AnyPublisher<[String], Never> {
        let queues = queues
        let name = typed.split(separator: "@").first.map(String.init) ?? typed
        return Future<[String], Never> { promise in
            queues.run(on: queues.network, after: .milliseconds(15)) {
                promise(.success(["\(name)@example.org", "\(name)@mail.example.com"]))
            }
        }
        .subscribe(on: queues.network, options: queues.schedulerOptions)
        .eraseToAnyPublisher()
    }

    /// Registers an account; refuses an e-mail address without a domain.
    func register(name: String, email: String) -> AnyPublisher<String, Refusal> {
        Future<String, Refusal> { [self] promise in
            queues.run(on: queues.network, after: .milliseconds(10)) { [self] in
                guard email.contains("@"), email.contains(".") else {
                    promise(.failure(Refusal(reason: "\(email) is not an e-mail address")))
                    return
                }
                lock.lock()
                registered.append(name)
                lock.unlock()
                session.send("token-\(name)")
                promise(.success(name))
            }
        }
        .subscribe(on: queues.network, options: queues.schedulerOptions)
        .eraseToAnyPublisher()
    }

    /// A user's display name and the preferences they chose, each its own round trip,
    /// fulfilled on the network queue: subscribe to them there.
    func details(of name: String) -> AnyPublisher<String, Never> {
        answer(after: .milliseconds(8)) { name.capitalized }
    }

    func preferences(of name: String) -> AnyPublisher<[String], Never> {
        answer(after: .milliseconds(12)) { ["dark mode", "weekly digest"] }
    }

    /// A user's avatar, as the text the screen shows for it.
    func avatar(of name: String) -> AnyPublisher<String, Never> {
        answer(after: .milliseconds(5)) { "[\(name.prefix(1).uppercased())]" }
            .subscribe(on: queues.network, options: queues.schedulerOptions)
            .eraseToAnyPublisher()
    }

    /// `value()`, fulfilled on the network queue after `delay`.
    private func answer<Value>(after delay: DispatchTimeInterval, _ value: @escaping @Sendable () -> Value) -> AnyPublisher<Value, Never> {
        let queues = queues
        return Future<Value, Never> { promise in
            queues.run(on: queues.network, after: delay) { promise(.success(value())) }
        }
        .eraseToAnyPublisher()
    }

    /// Pushes a status line on the network queue.
    func pushStatus(_ line: String) {
        queues.run(on: queues.network) { [statusLines] in statusLines.send(line) }
    }

    /// The accounts registered so far.
    var accounts: [String] {
        lock.lock()
        defer { lock.unlock() }
        return registered
    }
}
