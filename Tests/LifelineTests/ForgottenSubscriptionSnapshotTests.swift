import Dispatch
import OpenCombineShim
import Testing
import Lifeline
import LifelineLog

extension RecordingTests {
    /// The forgotten-subscription story in snapshots: at `receive(subscription:)` nothing but
    /// the stack holds a subscription its subscriber forgets, and a later snapshot no longer
    /// has it.
    @Suite struct ForgottenSubscriptionSnapshotTests {
        /// A subscriber that takes a snapshot while it receives its subscription.
        final class SnapshottingSubscriber: Subscriber {
            typealias Input = Int
            typealias Failure = Never

            let keepsSubscription: Bool
            var subscription: Subscription?

            init(keepsSubscription: Bool) {
                self.keepsSubscription = keepsSubscription
            }

            func receive(subscription: Subscription) {
                if keepsSubscription { self.subscription = subscription }
                Lifeline.snapshot("at receive(subscription:)")
            }

            func receive(_ input: Int) -> Subscribers.Demand { .none }
            func receive(completion: Subscribers.Completion<Never>) {}
        }

        func record(keepsSubscription: Bool) throws -> (trace: Trace, subscription: TraceObjectID) {
            var subscriber: SnapshottingSubscriber?
            let trace = try Lifeline.record {
                let queue = DispatchQueue(label: "lifeline.tests.forgotten")
                let publisher = LaterPublisher(queue: queue, group: DispatchGroup(), gate: DispatchSemaphore(value: 1))
                let made = SnapshottingSubscriber(keepsSubscription: keepsSubscription)
                publisher.subscribe(made)
                if keepsSubscription { subscriber = made }
                Lifeline.snapshot("after subscribe")
            }
            withExtendedLifetime(subscriber) {}
            let subscription = try #require(trace.objects.values.first { $0.shortTypeName == "LaterSubscription" }?.id)
            return (trace, subscription)
        }

        @Test func aForgottenSubscriptionIsHeldByNothingButTheStackAndThenGone() throws {
            let (trace, subscription) = try record(keepsSubscription: false)
            let atReceive = try #require(trace.snapshot(at: "at receive(subscription:)"))
            #expect(atReceive.node(subscription)?.alive == true)
            #expect(atReceive.edges.filter { $0.to == subscription }.isEmpty, "no object holds it")
            let later = try #require(trace.snapshot(at: "after subscribe"))
            #expect(later.node(subscription) == nil)
        }

        @Test func aKeptSubscriptionIsHeldByItsSubscriber() throws {
            let (trace, subscription) = try record(keepsSubscription: true)
            let atReceive = try #require(trace.snapshot(at: "at receive(subscription:)"))
            let holders = atReceive.edges.filter { $0.to == subscription && $0.ownership == .strong }
            #expect(holders.map { trace.objects[$0.from]?.shortTypeName } == ["RecordingTests.ForgottenSubscriptionSnapshotTests.SnapshottingSubscriber"])
            #expect(holders.first?.field.hasPrefix("subscription") == true)
            let later = try #require(trace.snapshot(at: "after subscribe"))
            #expect(later.node(subscription)?.alive == true)
        }
    }
}
