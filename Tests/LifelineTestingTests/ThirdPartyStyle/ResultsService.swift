import OpenCombineShim

/// A service that owns the subject its results arrive on, the way apps write them: each query
/// is a pipeline from that subject, made in a `flatMap` closure that captures the service.
final class ResultsService {
    let results = PassthroughSubject<String, Never>()

    /// The results that start with `prefix`.
    func query(_ prefix: String) -> AnyPublisher<String, Never> {
        results.filter { $0.hasPrefix(prefix) }.eraseToAnyPublisher()
    }
}

/// A screen's model that asks the service for each query it is given, and keeps the
/// AnyCancellable: the service → subject → `flatMap` → closure → service loop runs for as long
/// as the model keeps it, and ends when the model lets it go.
final class ResultsModel {
    let queries = PassthroughSubject<String, Never>()
    private(set) var shown: [String] = []
    private var cancellables = Set<AnyCancellable>()

    init(service: ResultsService) {
        queries
            .flatMap { service.query($0) }
            .sink { [weak self] in self?.shown.append($0) }
            .store(in: &cancellables)
    }
}
