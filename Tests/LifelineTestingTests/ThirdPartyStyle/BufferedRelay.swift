import OpenCombineShim

/// An operator written the way third-party libraries write them: its subscription keeps its
/// state in a ``DemandBuffer`` and subscribes to its upstream through an inner sink, so values
/// wait for the downstream's demand.
struct BufferedRelay<Upstream: Publisher>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure

    let upstream: Upstream

    func receive<Downstream: Subscriber>(subscriber: Downstream)
    where Downstream.Input == Output, Downstream.Failure == Failure {
        subscriber.receive(subscription: BufferedRelaySubscription(upstream: upstream, downstream: subscriber))
    }
}

/// The subscription ``BufferedRelay`` hands out: it cancels its upstream when cancelled.
final class BufferedRelaySubscription<Upstream: Publisher, Downstream: Subscriber>: Subscription
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    private let buffer: DemandBuffer<Downstream>
    private var upstream: AnyCancellable?

    init(upstream: Upstream, downstream: Downstream) {
        let buffer = DemandBuffer(subscriber: downstream)
        self.buffer = buffer
        self.upstream = upstream.sink(
            receiveCompletion: { buffer.complete($0) },
            receiveValue: { buffer.buffer($0) }
        )
    }

    func request(_ demand: Subscribers.Demand) {
        buffer.demand(demand)
    }

    func cancel() {
        upstream?.cancel()
        upstream = nil
    }
}

extension Publisher {
    /// Holds values until the downstream asks for them.
    func bufferedRelay() -> BufferedRelay<Self> {
        BufferedRelay(upstream: self)
    }
}
