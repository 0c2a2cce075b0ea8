#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Yesterday's closing quotes, from an old hand-written publisher.
///
/// The bug: its subscription sends every quote it has as soon as any demand arrives,
/// whatever the demand was, so a subscriber that asked for one quote gets three.
struct LegacyQuotePublisher: Publisher {
    typealias Output = Quote
    typealias Failure = Never

    let closing: [Quote]

    func receive<S: Subscriber>(subscriber: S) where S.Input == Quote, S.Failure == Never {
        subscriber.receive(subscription: LegacyQuoteSubscription(quotes: closing, subscriber: subscriber))
    }
}

/// The subscription ``LegacyQuotePublisher`` hands out: it ignores how much was requested.
private final class LegacyQuoteSubscription<S: Subscriber>: Subscription where S.Input == Quote, S.Failure == Never {
    private var quotes: [Quote]
    private var subscriber: S?

    init(quotes: [Quote], subscriber: S) {
        self.quotes = quotes
        self.subscriber = subscriber
    }

    func request(_ demand: Subscribers.Demand) {
        guard let subscriber, demand > .none else { return }
        self.subscriber = nil
        let pending = quotes
        quotes = []
        for quote in pending { _ = subscriber.receive(quote) }
        subscriber.receive(completion: .finished)
    }

    func cancel() {
        subscriber = nil
        quotes = []
    }
}
