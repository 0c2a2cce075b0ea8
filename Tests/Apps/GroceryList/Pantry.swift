import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// What is at home, an `ObservableObject` store with a `@Published` stock that the recipe
/// screen observes through `$stock.values`. It lives as long as the app.
final class Pantry: ObservableObject, @unchecked Sendable {
    @Published private(set) var stock: [String: Int] = [:]
    private let lock = NSLock()

    /// Puts groceries away.
    func restock(_ name: String, _ count: Int) {
        lock.lock()
        stock[name, default: 0] += count
        lock.unlock()
    }
}
