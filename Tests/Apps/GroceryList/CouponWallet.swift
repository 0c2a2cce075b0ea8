import Foundation
import Lifeline
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The coupons the server sends the shopper, shown at checkout.
///
/// **Its bug:** ``start()`` subscribes to the server's coupons and throws the `AnyCancellable`
/// away with `_ =`. The token cancels the subscription as it is released, at the end of that
/// statement, so the wallet never receives a coupon: the `[weak self]` is right, the missing
/// `.store(in: &cancellables)` is not. Lifeline reports it as `cancelled-immediately`.
final class CouponWallet: @unchecked Sendable {
    private(set) var codes: [String] = []
    private let server: GroceryServer
    private let queues: GroceryQueues

    init(server: GroceryServer, queues: GroceryQueues) {
        self.server = server
        self.queues = queues
    }

    /// Starts collecting coupons.
    func start() {
        _ = server.coupons
            .receive(on: queues.ui)
            .lifeline("coupons")
            .sink { [weak self] code in self?.codes.append(code) }
    }
}
