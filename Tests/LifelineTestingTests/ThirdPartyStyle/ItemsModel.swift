import Dispatch
import OpenCombineShim
import Synchronization

/// A store that publishes its items, and a screen's model that renders them from a `Task` that
/// iterates the store's publisher with `for await`, the way Swift concurrency code bridges
/// Combine. The task captures the model strongly and the model keeps the task: neither ends
/// until the store completes.
final class ItemsStore: @unchecked Sendable {
    let items = CurrentValueSubject<[String], Never>([])
    /// Signalled each time a reader asks for more items: a `for await` loop asks once it
    /// waits for its next value again.
    let asked = DispatchSemaphore(value: 0)

    /// The items, as readers iterate them.
    var updates: AnyPublisher<[String], Never> {
        items.handleEvents(receiveRequest: { [asked] _ in asked.signal() }).eraseToAnyPublisher()
    }
}

final class ItemsModel: @unchecked Sendable {
    private(set) var rendered: [[String]] = []
    private var task: Task<Void, Never>?
    private let finished = Mutex(false)

    func start(_ store: ItemsStore, rendering done: @escaping @Sendable () -> Void) {
        task = Task {
            for await items in store.updates.values {
                self.render(items)
                done()
            }
            self.finished.withLock { $0 = true }
        }
    }

    /// What a screen calls when it goes away: the task's `for await` loop ends, and with it the
    /// task's hold on the model.
    func stop() {
        task?.cancel()
    }

    /// Whether the task has ended since `stop()`.
    var isStopped: Bool {
        task?.isCancelled == true && finished.withLock { $0 }
    }

    private func render(_ items: [String]) {
        rendered.append(items)
    }
}
