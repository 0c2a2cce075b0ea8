import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

extension DecodedDataTaskPublisher {
    /// The seed's subscription: it holds its subscriber strongly, starts a data task when demand
    /// arrives, and holds itself only weakly from the task's completion handler.
    ///
    /// So if nobody else keeps the subscription, it dies as soon as the publisher's
    /// `receive(subscriber:)` returns, taking its subscriber along, and the response finds
    /// nobody to deliver to.
    final class DecodedDataTaskSubscription<S: Subscriber>: Subscription
    where S.Input == Output, S.Failure == any Error {
        private let urlRequest: URLRequest
        private let network: OfflineNetwork
        private var subscriber: S?

        init(urlRequest: URLRequest, network: OfflineNetwork, subscriber: S) {
            self.urlRequest = urlRequest
            self.network = network
            self.subscriber = subscriber
        }

        func request(_ demand: Subscribers.Demand) {
            if demand > 0 {
                network.dataTask(with: urlRequest) { [weak self] data, _, error in
                    defer { self?.cancel() }

                    if let data {
                        do {
                            let result = try JSONDecoder().decode(Output.self, from: data)
                            _ = self?.subscriber?.receive(result)
                            self?.subscriber?.receive(completion: .finished)
                        } catch {
                            self?.subscriber?.receive(completion: .failure(error))
                        }
                    } else if let error {
                        self?.subscriber?.receive(completion: .failure(error))
                    }
                }.resume()
            }
        }

        func cancel() {
            subscriber = nil
        }
    }
}
