import OpenCombineShim
import Synchronization

/// A store that publishes its items, and a screen's model that renders them from a `Task` that
/// iterates the store's publisher with `for await`, the way Swift concurrency code bridges
/// Combine. The task captures the model strongly and the model keeps the task: neither ends
/// until the store completes.
final class ItemsStore: @unchecked Sendable {
    let items = CurrentValueSubject<[String], Never>([])
}

final class ItemsModel: @unchecked Sendable {
    private(set) var rendered: [[String]] = []
    private var task: Task<Void, Never>?
    private let finished = Mutex(false)

    func start(_ store: ItemsStore, rendering done: @escaping @Sendable () -> Void) {
        task = Task {
            for await items in store.items.values {
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
