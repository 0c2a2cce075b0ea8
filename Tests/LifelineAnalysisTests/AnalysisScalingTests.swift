import LifelineLog
import Testing
@testable import LifelineAnalysis

/// The analysis stays in proportion to the log on the shapes that used to make it quadratic:
/// one subscriber subscribed again and again (`retry`), and one subscription whose every value
/// is asked for by a request of its own. The logs are generated in-process, with 100,000
/// resubscriptions and 50,000 paced values; quadratic work (10⁹ to 10¹⁰ steps) would not
/// finish. Durations are printed as benchmark figures, never asserted.
@Suite struct AnalysisScalingTests {
    static let resubscriptions = 100_000
    static let pacedValues = 50_000

    private func measured<Result>(_ label: String, events: Int, _ work: () -> Result) -> Result {
        let clock = ContinuousClock()
        var result: Result?
        let duration = clock.measure { result = work() }
        print("benchmark: \(label): \(events) events diagnosed in \(duration)")
        return result!
    }

    @Test func aSubscriberResubscribedAHundredThousandTimesIsDiagnosedInLinearTime() {
        var script = TraceScript()
        let upstream = script.object("Fail", .publisher, tracked: false)
        let retry = script.object("Publishers.Retry.Inner", .subscriber)
        for _ in 0..<Self.resubscriptions {
            let subscription = script.object("Fail.Inner", .subscription, tracked: false)
            script.subscribe(upstream, retry) {
                $0.receiveSubscription(retry, subscription) { $0.request(subscription, .unlimited) }
            }
            script.complete(retry, .failure("boom"))
        }
        let trace = script.trace()
        let diagnoses = measured("100,000 resubscriptions", events: trace.events.count) { TraceAnalyzer().diagnose(trace) }
        #expect(diagnoses.isEmpty, "\(diagnoses.prefix(3).map(\.message))")
        let lifecycles = TraceLifecycles(trace)
        #expect(lifecycles.lifecycles.count == Self.resubscriptions)
        #expect(lifecycles.lifecycles.allSatisfy { lifecycles.overlappedLifecycle(for: $0) == nil })
    }

    @Test func fiftyThousandValuesEachAskedForAloneAreCheckedInLinearTime() {
        var script = TraceScript()
        let publisher = script.object("FeedPublisher", .publisher)
        let subscriber = script.object("PacedSubscriber", .subscriber)
        let subscription = script.object("FeedSubscription", .subscription)
        script.subscribe(publisher, subscriber) { $0.receiveSubscription(subscriber, subscription) }
        for _ in 0..<Self.pacedValues {
            script.request(subscription, .max(1))
            script.value(subscriber)
        }
        let overflow = script.nextSeq
        script.value(subscriber)
        script.complete(subscriber)
        let trace = script.trace()
        let diagnoses = measured("50,000 paced values", events: trace.events.count) { TraceAnalyzer().diagnose(trace) }
        #expect(diagnoses.map(\.code) == ["demand-exceeded"])
        #expect(diagnoses.first?.evidence.last == overflow)
        #expect(diagnoses.first?.evidence.count == Self.pacedValues + 1)
    }
}
