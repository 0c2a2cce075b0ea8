import OpenCombineShim

/// A service that owns the subject its updates come from, and a screen's model that shows them
/// whenever the user refreshes: written as `flatMap` into the service's updates, which never
/// complete, so each refresh subscribes to them once more (the bug), or, fixed, with
/// `switchToLatest()`, which cancels the previous subscription.
final class RefreshingFeed {
    final class Service {
        let updates = PassthroughSubject<String, Never>()
    }

    let service = Service()
    let refresh = PassthroughSubject<Void, Never>()
    private(set) var shown: [String] = []
    private var cancellable: AnyCancellable?

    init(switchingToLatest: Bool) {
        let updates = service.updates
        let shownUpdates = switchingToLatest
            ? refresh.map { _ in updates }.switchToLatest().eraseToAnyPublisher()
            : refresh.flatMap { _ in updates }.eraseToAnyPublisher()
        cancellable = shownUpdates.sink { [weak self] update in self?.shown.append(update) }
    }
}
