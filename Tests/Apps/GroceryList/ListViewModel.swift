import Foundation
import Lifeline
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The list screen's view model: shows each item with its price, the total of what is still
/// to buy, what the pantry already has, the sync state and the deals banner. The list screen
/// is the app's first screen and stays open as long as the app runs.
///
/// Its pipelines are correct. It bridges the store's subjects into two `Task`s that iterate
/// them with `for await` and capture the model weakly; `deinit` cancels both, which ends their
/// loops and the loops' subscriptions. The sync state comes through `sink` with `[weak self]`,
/// kept in the model's `cancellables`. Adding or checking off an item starts a short task that
/// changes the store and awaits its sync.
final class ListViewModel: ObservableObject, @unchecked Sendable {
    @Published private(set) var rows: [String] = []
    @Published private(set) var totalCents = 0
    @Published private(set) var atHome: [String: Int] = [:]
    @Published private(set) var status = ""
    let banner: DealsBanner
    private let store: ListStore
    private let queues: GroceryQueues
    private var listTask: Task<Void, Never>?
    private var pantryTask: Task<Void, Never>?
    private var cancellables = Set<AnyCancellable>()

    init(store: ListStore, pantry: Pantry, server: GroceryServer, queues: GroceryQueues) {
        self.store = store
        self.queues = queues
        banner = DealsBanner(feed: DealsFeed(server: server), store: store, queues: queues)

        let items = store.items
        listTask = Task { [weak self] in
            for await list in items.lifeline("list").values {
                let prices = await server.prices(of: list.map(\.name))
                guard let self else { return }
                self.show(list, prices: prices)
            }
        }
        let stock = pantry.$stock
        pantryTask = Task { [weak self] in
            for await stock in stock.lifeline("pantry").values {
                guard let self else { return }
                self.queues.ui.async { [weak self] in self?.atHome = stock }
            }
        }

        store.syncState
            .receive(on: queues.ui)
            .lifeline("sync state")
            .sink { [weak self] state in
                switch state {
                case .idle: self?.status = ""
                case .syncing: self?.status = "Syncing…"
                case .synced(let revision): self?.status = "Saved (revision \(revision))"
                case .failed(let reason): self?.status = "Not saved: \(reason)"
                }
            }
            .store(in: &cancellables)
    }

    deinit {
        listTask?.cancel()
        pantryTask?.cancel()
    }

    /// The shopper adds an item: the store changes at once and syncs in the background.
    func add(_ name: String, quantity: Int = 1) {
        queues.task { [store] in
            store.add(name, quantity: quantity)
            await store.sync()
        }
    }

    /// The shopper checks an item off.
    func toggle(_ name: String) {
        queues.task { [store] in
            store.toggle(name)
            await store.sync()
        }
    }

    /// Shows the list with its prices, on the UI queue.
    private func show(_ list: [GroceryItem], prices: [String: Int]) {
        let rows = list.map { item in
            let price = prices[item.name].map { String(format: "%.2f", Double($0 * item.quantity) / 100) } ?? "?"
            return "\(item.checked ? "✓" : "·") \(item.quantity) \(item.name) \(price)"
        }
        let total = list.filter { !$0.checked }.reduce(0) { $0 + (prices[$1.name] ?? 0) * $1.quantity }
        queues.ui.async { [weak self] in
            self?.rows = rows
            self?.totalCents = total
        }
    }
}
