import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The simulated grocery server. Its calls are `async` functions that answer from the network
/// queue a few milliseconds later, the way an `async` URLSession call does; what it pushes
/// (deals, coupons) comes through subjects it owns, sent on the network queue.
final class GroceryServer: @unchecked Sendable {
    /// Price cuts, as the server announces them.
    let deals = PassthroughSubject<Deal, Never>()
    /// Coupons for the signed-in shopper.
    let coupons = PassthroughSubject<String, Never>()
    private let queues: GroceryQueues
    private let prices: [String: Int] = ["apples": 120, "bread": 250, "coffee": 899, "eggs": 310, "flour": 160, "milk": 95, "rice": 180]
    /// The revisions the server kept, read on the network queue.
    private var revisions: [[GroceryItem]] = []

    init(queues: GroceryQueues) {
        self.queues = queues
    }

    /// The price of each item, in cents; an unknown item has none.
    func prices(of names: [String]) async -> [String: Int] {
        await withCheckedContinuation { continuation in
            queues.run(on: queues.network, after: .milliseconds(3)) {
                continuation.resume(returning: self.prices.filter { names.contains($0.key) })
            }
        }
    }

    /// Uploads the list; returns the revision the server gave it.
    func upload(_ items: [GroceryItem]) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            queues.run(on: queues.network, after: .milliseconds(2)) {
                guard !items.contains(where: { $0.quantity <= 0 }) else {
                    continuation.resume(throwing: UploadError.invalidQuantity)
                    return
                }
                self.revisions.append(items)
                continuation.resume(returning: self.revisions.count)
            }
        }
    }

    /// How many revisions the server kept.
    var revisionCount: Int {
        queues.network.sync { revisions.count }
    }

    /// Announces a price cut, from the network queue.
    func announce(_ deal: Deal) {
        queues.run(on: queues.network) { self.deals.send(deal) }
    }

    /// Sends a coupon, from the network queue.
    func sendCoupon(_ code: String) {
        queues.run(on: queues.network) { self.coupons.send(code) }
    }

    enum UploadError: Error {
        case invalidQuantity
    }
}
