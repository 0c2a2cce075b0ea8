import LifelineLog
import Testing
@testable import LifelineAnalysis

/// The stories from the seeds: the buggy shapes get exactly their codes, the fixed shapes none.
@Suite struct StoryDiagnosisTests {
    @Test func theForgottenSubscriptionGetsExactlyItsDiagnosis() throws {
        let story = Stories.forgottenSubscription()
        let diagnoses = TraceAnalyzer().diagnose(story.script.trace())
        // The subscriber was seen alive after its subscription died: it lost a subscription
        // that was already gone, so it did not die early.
        #expect(diagnoses.map(\.code) == ["subscription-not-retained"])

        let notRetained = try #require(diagnoses.first { $0.code == "subscription-not-retained" })
        #expect(notRetained.severity == .error)
        #expect(notRetained.objects == [story.subscription, story.subscriber, story.publisher])
        #expect(notRetained.evidence == [2, 5, 7])
        #expect(notRetained.message.contains("URLSessionSubscription #3 was deallocated right after URLSessionSubscriber #2's receive(subscription:) returned"))
        #expect(notRetained.fix.contains("return it as a Cancellable"))
        #expect(notRetained.hop == Hop(publisher: story.publisher, subscription: story.subscription, subscriber: story.subscriber))
    }

    @Test func theSubscriberThatStoresItsSubscriptionGetsNone() {
        #expect(Stories.storedSubscription().script.codes().isEmpty)
    }

    @Test func aSinkKeptInItsAnyCancellableGetsNone() {
        #expect(Stories.keptSink().script.codes().isEmpty)
    }

    @Test func aDroppedSinkIsCancelledImmediately() throws {
        let story = Stories.droppedSink()
        let diagnoses = TraceAnalyzer().diagnose(story.script.trace())
        #expect(diagnoses.map(\.code) == ["cancelled-immediately"])
        let diagnosis = try #require(diagnoses.first)
        #expect(diagnosis.severity == .warning)
        #expect(diagnosis.objects == [story.subscription, story.subscriber, story.publisher])
        #expect(diagnosis.evidence == [1, 2, 6, 7])
        #expect(diagnosis.message == "PassthroughSubject.Conduit #3 was cancelled right after Sink #2 subscribed to PassthroughSubject #1, before any value arrived: the subscription was dropped as soon as it was made. (The log does not say who cancelled, so this is judged by the cancel following the subscribe directly; a deliberate cancel() looks the same.)")
    }

    @Test func aSecondRequestIsNeverFlagged() {
        var script = TraceScript()
        let publisher = script.object("CustomPublisher", .publisher)
        let subscriber = script.object("CustomSubscriber", .subscriber)
        let subscription = script.object("CustomSubscription", .subscription)
        script.subscribe(publisher, subscriber) {
            $0.receiveSubscription(subscriber, subscription) { $0.request(subscription, .max(2)) }
        }
        script.request(subscription, .max(3))
        for _ in 0..<5 { script.value(subscriber) }
        script.complete(subscriber)
        #expect(script.codes().isEmpty)
    }

    @Test func justCompletingInsideTheSubscribeCallThenBeingCancelledGetsNone() {
        var script = TraceScript()
        let just = script.object("Just", .publisher, tracked: false)
        let sink = script.object("Sink", .subscriber)
        let inner = script.object("Just.Inner", .subscription)
        script.subscribe(just, sink) {
            $0.receiveSubscription(sink, inner) {
                $0.request(inner, .unlimited) {
                    $0.value(sink)
                    $0.complete(sink)
                }
            }
        }
        script.cancel(inner)
        script.found(dead: inner, aliveAt: 12)
        script.found(dead: sink, aliveAt: 12)
        #expect(script.codes().isEmpty)
    }

    @Test func aCancelAfterTheCompletionGetsNone() {
        var story = Stories.keptSink()
        story.script.complete(story.subscriber)
        story.script.cancel(story.subscription)
        story.script.found(dead: story.subscription, aliveAt: 14)
        story.script.found(dead: story.subscriber, aliveAt: 14)
        #expect(story.script.codes().isEmpty)
    }

    @Test func aRecordingThatNeverStoppedCleanlyMakesNoClaimsAboutTheEnd() {
        var story = Stories.storedSubscription()
        story.script = TraceScript()
        let p = story.script.object("CustomPublisher", .publisher)
        let x = story.script.object("CustomSubscriber", .subscriber)
        let s = story.script.object("CustomSubscription", .subscription)
        story.script.subscribe(p, x) { $0.receiveSubscription(x, s) { $0.request(s, .max(1)) } }
        story.script.value(x)
        #expect(story.script.codes(closed: true) == ["demand-stalled"])
        // Not a stall at the end of the recording: what the pipeline waited on when the log ended.
        #expect(story.script.codes(closed: false) == ["waits-on"])
    }
}
