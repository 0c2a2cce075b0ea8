import AppMutations
import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The search screen: what the reader types is debounced, repeated queries are dropped, each
/// query becomes one request, and the results arrive on the UI queue. Correct: the pipeline is
/// stored, and the sink holds the model weakly.
final class SearchViewModel: @unchecked Sendable {
    let query = PassthroughSubject<String, Never>()
    private(set) var results: [String] = []
    private var cancellables = Set<AnyCancellable>()

    init(backend: NewsBackend, queues: AppQueues, mutation: AppMutation = .none) {
        let headlines = query
            .debounce(for: .milliseconds(20), scheduler: queues.search, options: queues.schedulerOptions)
            .removeDuplicates()
            .flatMap { backend.search($0) }
            .receive(on: queues.ui, options: queues.schedulerOptions)
        guard mutation == .strongSelf else {
            headlines
                .sink { [weak self] in self?.results = $0 }
                .store(in: &cancellables)
            return
        }
        headlines
            .sink { self.results = $0 } // seeded: strong-self
            .store(in: &cancellables)
    }
}
