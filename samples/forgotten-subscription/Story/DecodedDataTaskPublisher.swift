import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The seed's custom publisher: for each subscriber it makes a ``DecodedDataTaskSubscription``
/// that loads a URL and decodes the response as `Output`.
///
/// Like the seed, it creates the subscription and hands it to the subscriber, and keeps no
/// reference to either: whoever wants the request to finish must keep the subscription.
struct DecodedDataTaskPublisher<Output: Decodable>: Publisher {
    typealias Failure = any Error

    let urlRequest: URLRequest
    let network: OfflineNetwork

    func receive<S>(subscriber: S) where S: Subscriber, Failure == S.Failure, Output == S.Input {
        let subscription = DecodedDataTaskSubscription(
            urlRequest: urlRequest, network: network, subscriber: subscriber)
        subscriber.receive(subscription: subscription)
    }
}

extension OfflineNetwork {
    /// A publisher that loads `urlRequest` and decodes the response (the seed's
    /// `URLSession.decodedDataTaskPublisher(for:)`).
    func decodedDataTaskPublisher<Output: Decodable>(
        for urlRequest: URLRequest
    ) -> DecodedDataTaskPublisher<Output> {
        DecodedDataTaskPublisher(urlRequest: urlRequest, network: self)
    }
}
