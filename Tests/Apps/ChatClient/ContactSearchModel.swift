import AppMutations
import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The "new chat" contact picker: the query is debounced on the typing queue, repeated queries
/// are dropped, and one lookup runs at a time (`flatMap(maxPublishers: .max(1))`); a refused
/// lookup shows no contacts (`replaceError`).
///
/// Correct: the token is stored and the sink holds `self` weakly.
final class ContactSearchModel {
    let query = PassthroughSubject<String, Never>()
    private(set) var results: [[String]] = []
    private var cancellables = Set<AnyCancellable>()

    init(server: ChatServer, queues: ChatQueues, mutation: AppMutation = .none) {
        let found = query
            .debounce(for: .milliseconds(8), scheduler: queues.typing, options: queues.schedulerOptions)
            .removeDuplicates()
            .flatMap(maxPublishers: .max(1)) { prefix in
                server.contacts(matching: prefix).replaceError(with: [])
            }
            .receive(on: queues.ui, options: queues.schedulerOptions)
        switch mutation {
        case .strongSelf:
            found
                .sink { contacts in self.results.append(contacts) } // seeded: strong-self
                .store(in: &cancellables)
        case .droppedStore:
            _ = found.sink { [weak self] contacts in self?.results.append(contacts) } // seeded: dropped-store
        default:
            found
                .sink { [weak self] contacts in self?.results.append(contacts) }
                .store(in: &cancellables)
        }
    }
}
