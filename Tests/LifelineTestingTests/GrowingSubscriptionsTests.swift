import Foundation
import Lifeline
import LifelineAnalysis
import LifelineLog
import OpenCombineShim
import Testing

/// An operator that subscribes to the same publisher again with each value and never ends the
/// earlier subscriptions, recorded from a screen's model that refreshes a service's updates.
@Suite("Growing inner subscriptions, recorded", .serialized)
struct GrowingSubscriptionsTests {
    /// The feed's findings after three refreshes and one update, and what it showed.
    private func refreshThreeTimes(switchingToLatest: Bool, everyCall: Bool) throws -> (trace: Trace, findings: [Diagnosis], shown: [String]) {
        var shown: [String] = []
        let trace = try Lifeline.record(options: RecordingOptions(snapshots: everyCall ? .everyCall : .atStop)) {
            let feed = RefreshingFeed(switchingToLatest: switchingToLatest)
            for _ in 0..<3 { feed.refresh.send() }
            feed.service.updates.send("news")
            shown = feed.shown
        }
        return (trace, TraceAnalyzer().diagnose(trace), shown)
    }

    @Test(arguments: [false, true])
    func aFlatMapIntoAServicesUpdatesGrowsWithEachRefresh(everyCall: Bool) throws {
        let (trace, findings, shown) = try refreshThreeTimes(switchingToLatest: false, everyCall: everyCall)
        #expect(shown == ["news", "news", "news"])
        let growing = findings.filter { $0.code == "growing-subscriptions" }
        let finding = try #require(growing.count == 1 ? growing.first : nil, "\(findings.map(\.message))")
        #expect(finding.severity == .warning)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("ThirdPartyStyle/RefreshingFeed.swift"), encoding: .utf8)
        let line = try #require(source.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains("cancellable = shownUpdates.sink") }) + 1
        #expect(finding.message.contains("(RefreshingFeed.swift:\(line)) subscribed to PassthroughSubject #"), "\(finding.message)")
        #expect(finding.message.contains("again with each of 3 values it received"), "\(finding.message)")
        #expect(finding.message.contains("After the last one, 3 subscriptions each received the next value"), "\(finding.message)")
        // The evidence: the three inner subscribes, then the one update each of them received.
        let kinds = finding.evidence.compactMap { seq in trace.events.first { $0.seq == seq }?.kind.name }
        #expect(kinds == ["subscribe", "subscribe", "subscribe", "value", "value", "value"], "\(kinds)")
        #expect(findings.count == 1, "\(findings.map(\.message))")
    }

    @Test(arguments: [false, true])
    func switchingToTheLatestKeepsOneSubscription(everyCall: Bool) throws {
        let (_, findings, shown) = try refreshThreeTimes(switchingToLatest: true, everyCall: everyCall)
        #expect(shown == ["news"])
        #expect(findings.isEmpty, "\(findings.map(\.message))")
    }

    @Test func innerPublishersThatCompleteDoNotGrow() throws {
        var shown: [Int] = []
        let trace = try Lifeline.record {
            let refresh = PassthroughSubject<Int, Never>()
            let cancellable = refresh.flatMap { value in Just(value * 10) }.sink { shown.append($0) }
            for value in 1...5 { refresh.send(value) }
            cancellable.cancel()
        }
        #expect(shown == [10, 20, 30, 40, 50])
        #expect(TraceAnalyzer().diagnose(trace).filter { $0.code == "growing-subscriptions" }.isEmpty)
    }
}
