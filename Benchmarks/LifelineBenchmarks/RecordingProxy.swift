#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A hop that records a 32-byte record into a ``RecordBuffer`` before and after each value it
/// passes on: the cheapest recorder that sees the same 8 events per value as Lifeline does on
/// the benchmark's chain. Without a buffer it only passes values on, which is what the hop
/// itself costs.
struct RecordingProxy<Upstream: Publisher>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure

    let upstream: Upstream
    let buffer: RecordBuffer?
    let object: UInt64

    func receive<Downstream: Subscriber>(subscriber: Downstream) where Downstream.Input == Output, Downstream.Failure == Failure {
        upstream.subscribe(Inner(downstream: subscriber, buffer: buffer, object: object))
    }

    private final class Inner<Downstream: Subscriber>: Subscriber where Downstream.Input == Output, Downstream.Failure == Failure {
        typealias Input = Output

        let combineIdentifier = CombineIdentifier()
        let downstream: Downstream
        let buffer: RecordBuffer?
        let object: UInt64

        init(downstream: Downstream, buffer: RecordBuffer?, object: UInt64) {
            self.downstream = downstream
            self.buffer = buffer
            self.object = object
        }

        func receive(subscription: Subscription) {
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            buffer?.record(object: object, kind: 1)
            let demand = downstream.receive(input)
            buffer?.record(object: object, kind: 2)
            return demand
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }
    }
}

extension Publisher {
    func recordingProxy(_ buffer: RecordBuffer?, object: UInt64) -> RecordingProxy<Self> {
        RecordingProxy(upstream: self, buffer: buffer, object: object)
    }
}
