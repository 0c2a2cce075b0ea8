import OpenCombineShim

/// A screen's model that starts a `Task` iterating the store's items and keeps no handle to
/// it: the task captures the model, and runs until the store completes.
final class ItemsFeedModel: @unchecked Sendable {
    private(set) var rendered: [[String]] = []

    func start(_ store: ItemsStore, rendering done: @escaping @Sendable () -> Void) {
        Task {
            for await items in store.updates.values {
                self.rendered.append(items)
                done()
            }
        }
    }
}
