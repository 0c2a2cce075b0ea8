import Dispatch
import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineTesting
import OpenCombineShim
import Testing

/// Findings that the log contradicted on real programs (issue 10, "Every finding true"), each
/// recorded from a real program: the false ones stay silent, the true ones still fire.
@Suite("Every finding true, recorded", .serialized)
struct TrueFindingsTests {
    /// The codes of the problems a lifecycle check of `body` finds.
    private func codes(draining queues: [DispatchQueue] = [], _ body: () throws -> Void) throws -> [String] {
        try LifecycleCheck(draining: queues).run(body).problems.map(\.code)
    }

    @Test func aSubscriberThatOutlivesItsForgottenSubscriptionWasNotDeallocatedEarly() throws {
        let queue = DispatchQueue(label: "upload")
        var analytics: ForgetfulSubscriber? = ForgetfulSubscriber()
        let found = try codes(draining: [queue]) {
            // The answer waits until the handshake is over, so that it cannot overlap it.
            queue.suspend()
            WeaklyHeldUpload(queue: queue).subscribe(analytics!)
            queue.resume()
            queue.sync {}
            Lifeline.mark("the app goes on, then lets the subscriber go")
            analytics = nil
        }
        #expect(found == ["subscription-not-retained"])
    }

    @Test func aPipelineTornDownAtOnceWasNotDeallocatedEarly() throws {
        // The feed holds its subscriptions and they hold their subscribers: when the feed's
        // owner lets it go, everything dies at once, subscriptions still open.
        let found = try codes {
            do {
                let feed = DroppingFeed()
                feed.subscribe(ForgetfulSubscriber())
                feed.map { $0 * 2 }.subscribe(ForgetfulSubscriber())
            }
        }
        #expect(found.isEmpty, "\(found)")
    }

    @Test func aSubscriberMadeBeforeTheBlockWhoseSubscriptionDiedInsideItDidNotLeak() throws {
        let queue = DispatchQueue(label: "upload")
        let analytics = ForgetfulSubscriber()
        let found = try codes(draining: [queue]) {
            queue.suspend()
            WeaklyHeldUpload(queue: queue).subscribe(analytics)
            queue.resume()
        }
        withExtendedLifetime(analytics) {}
        #expect(found == ["subscription-not-retained"])
    }

    @Test func aStrongSelfSinkOnAFiniteRequestIsNoRetainCycleOnceTheRequestFinished() throws {
        let queue = DispatchQueue(label: "network")
        let model = ProfileModel()
        let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
            // The network answers only once the snapshot has seen the request running.
            queue.suspend()
            model.load(on: queue)
            Lifeline.snapshot("loading")
            queue.resume()
            #expect(model.loaded.wait(timeout: .now() + .seconds(10)) == .success)
            queue.sync {}
        }
        withExtendedLifetime(model) {}

        // The loop was there while the request ran (the automatic snapshot after the subscribe
        // call is taken before the AnyCancellable is stored)…
        let graphs = trace.snapshots.map { OwnershipGraph(snapshot: $0, trace: trace) }
        #expect(graphs.contains { !$0.retainCycles.isEmpty }, "no snapshot saw the request running")
        // …and later snapshots show the live sink without its closure: the loop was broken.
        let codes = TraceAnalyzer().diagnose(trace).map(\.code)
        #expect(codes.isEmpty, "\(codes)")
    }
}

/// A profile screen whose sink captures `self` strongly and is stored in `self`, on a request
/// that finishes: the loop lasts until the request completes, then the sink lets go of its
/// closures.
private final class ProfileModel: @unchecked Sendable {
    let loaded = DispatchSemaphore(value: 0)
    private(set) var name: String?
    private var cancellables = Set<AnyCancellable>()

    func load(on queue: DispatchQueue) {
        Future<String, Never> { promise in
            nonisolated(unsafe) let promise = promise
            queue.asyncAfter(deadline: .now() + .milliseconds(5)) { promise(.success("Ada")) }
        }
        .sink { name in
            self.name = name
            self.loaded.signal()
        }
        .store(in: &cancellables)
    }
}
