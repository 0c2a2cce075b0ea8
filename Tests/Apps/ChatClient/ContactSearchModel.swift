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

    init(server: ChatServer, queues: ChatQueues) {
        query
            .debounce(for: .milliseconds(8), scheduler: queues.typing, options: queues.schedulerOptions)
            .removeDuplicates()
            .flatMap(maxPublishers: .max(1)) { prefix in
                server.contacts(matching: prefix).replaceError(with: [])
            }
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] contacts in self?.results.append(contacts) }
            .store(in: &cancellables)
    }
}
