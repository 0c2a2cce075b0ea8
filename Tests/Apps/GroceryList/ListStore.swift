import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The shopping list service: owns the list and its sync state as `CurrentValueSubject`s that
/// every screen observes, and syncs with the server through `async` calls awaited from tasks.
/// The list lives as long as the app.
final class ListStore: @unchecked Sendable {
    /// The list, in the order items were added.
    let items = CurrentValueSubject<[GroceryItem], Never>([])
    /// Where the list stands with the server.
    let syncState = CurrentValueSubject<SyncState, Never>(.idle)
    private let server: GroceryServer
    private let lock = NSLock()

    init(server: GroceryServer) {
        self.server = server
    }

    /// Adds an item, or raises its quantity if it is on the list.
    func add(_ name: String, quantity: Int = 1) {
        update { items in
            if let index = items.firstIndex(where: { $0.name == name }) {
                items[index].quantity += quantity
            } else {
                items.append(GroceryItem(name: name, quantity: quantity))
            }
        }
    }

    /// Checks an item off, or back on.
    func toggle(_ name: String) {
        update { items in
            if let index = items.firstIndex(where: { $0.name == name }) { items[index].checked.toggle() }
        }
    }

    /// Uploads the list and publishes the outcome. Awaited from the tasks that change the list.
    func sync() async {
        syncState.send(.syncing)
        do {
            let revision = try await server.upload(items.value)
            syncState.send(.synced(revision: revision))
        } catch {
            syncState.send(.failed("\(error)"))
        }
    }

    /// Changes the list under the lock, then publishes it.
    private func update(_ change: (inout [GroceryItem]) -> Void) {
        lock.lock()
        var list = items.value
        change(&list)
        items.send(list)
        lock.unlock()
    }
}
