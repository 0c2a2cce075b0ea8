@testable import Lifeline
import LifelineAnalysis
import LifelineLog
import NewsReaderApp
import Testing

/// The news reader (Tests/Apps/NewsReader), a realistic app with three documented bugs, gives
/// exactly those bugs, recorded the way users record: with the default one-call recording (an
/// ownership snapshot at stop only), and with snapshots after every call.
@Suite("The news reader's findings", .serialized)
struct NewsReaderAppTests {
    /// Runs the app once under recording and diagnoses the log.
    private func diagnose(options: RecordingOptions) throws -> (TraceLifecycles, [Diagnosis]) {
        let trace = try Lifeline.record(options: options) {
            let app = NewsReaderApp()
            #expect(app.run(), "the app's queues went quiet")
            app.tearDown()
        }
        let lifecycles = TraceLifecycles(trace)
        return (lifecycles, TraceAnalyzer().diagnose(lifecycles))
    }

    private func typeNames(_ ids: [TraceObjectID], in lifecycles: TraceLifecycles) -> [String] {
        ids.compactMap { lifecycles.trace.object($0)?.shortTypeName }
    }

    /// Checks the findings are the app's bugs, each on the right objects.
    private func expectExactlyTheAppsBugs(_ diagnoses: [Diagnosis], in lifecycles: TraceLifecycles) throws {
        let report = TextDiagnosisReport(trace: lifecycles.trace, diagnoses: diagnoses).render()
        let codes = diagnoses.map(\.code)
        #expect(codes.filter { $0 == "retain-cycle" }.count == 1, "\(report)")
        #expect(codes.filter { $0 == "subscription-not-retained" }.count == 1, "\(report)")
        #expect(codes.filter { $0 == "cancelled-immediately" }.count == 1, "\(report)")
        #expect(codes.count == 3, "\(report)")

        let cycle = try #require(diagnoses.first { $0.code == "retain-cycle" })
        #expect(cycle.severity == .error)
        #expect(cycle.message.hasPrefix("Retain cycle: ArticleStore.cancellables → "), "\(cycle.message)")
        #expect(cycle.message.contains("Sink.receiveValue (closure) → ArticleStore"), "\(cycle.message)")
        // Cited where the loop was made: the sink's subscribe call and its return.
        let cited = cycle.evidence.compactMap(lifecycles.event)
        #expect(cited.map { "\($0.kind.name) \($0.phase.rawValue)" } == ["subscribe begin", "subscribe end"], "\(cited)")

        let notRetained = try #require(diagnoses.first { $0.code == "subscription-not-retained" })
        #expect(typeNames(notRetained.objects, in: lifecycles) == ["UploadSubscription", "AnalyticsSubscriber", "UploadPublisher"])

        // The badge's dropped token: a sink of its own, made in watchBadgeWhileLoading.
        let dropped = try #require(diagnoses.first { $0.code == "cancelled-immediately" })
        let hop = try #require(dropped.hop)
        #expect(typeNames([hop.subscriber], in: lifecycles) == ["Sink"])
        #expect(lifecycles.trace.object(hop.subscriber)?.sourceLocation?.function?.hasPrefix("HomeScreenModel.watchBadgeWhileLoading") == true)
        #expect(!cycle.objects.contains(hop.subscriber))
        // The subscription `autoconnect()` made has no place of its own: it is named by the
        // line of the sink that subscribed its pipeline.
        #expect(dropped.message.wholeMatch(of: /Autoconnect\.SideEffectSubscription #[0-9]+ \(HomeScreenModel\.swift:[0-9]+\) was cancelled before any value arrived: .*/) != nil, "\(dropped.message)")
    }

    @Test func withTheDefaultRecordingItGivesExactlyItsBugs() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions())
        try expectExactlyTheAppsBugs(diagnoses, in: lifecycles)
        // The whole log, as `lifeline render` draws it first, within a doc page.
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)

        // The subscriber lived on after its subscription died, until the app was torn down;
        // `why` says so instead of "not reached".
        let analytics = try #require(lifecycles.trace.objects.values.first { $0.shortTypeName == "AnalyticsSubscriber" })
        let stop = try #require(lifecycles.trace.snapshots.last)
        let graph = OwnershipGraph(snapshot: stop, trace: lifecycles.trace)
        let explanation = lifecycles.whyAlive(analytics.id, in: graph)
        guard case .deallocatedBefore(let death) = explanation else {
            Issue.record("AnalyticsSubscriber at stop: \(explanation)")
            return
        }
        #expect(graph.sentence(explaining: explanation, subject: "AnalyticsSubscriber")
            .hasPrefix("AnalyticsSubscriber was deallocated at @\(death.seq) (last seen alive at @"))
    }

    @Test func withSnapshotsAfterEveryCallItGivesExactlyItsBugs() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions(snapshots: .everyCall))
        try expectExactlyTheAppsBugs(diagnoses, in: lifecycles)
        // The whole log, as `lifeline render` draws it first, within a doc page.
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)
    }

    /// Per-call snapshots are written as what changed since the snapshot before; on the app,
    /// whose four queues keep running while a snapshot is taken, the log's delta lines read
    /// back as exactly the snapshots the recorder took. (That they find what a full read finds
    /// is checked where nothing runs between the two reads: PerCallSnapshotTests.)
    @Test func perCallSnapshotsReadBackAsTheSnapshotsTaken() throws {
        var session: RecordingSession?
        let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
            session = Lifeline.current
            session?.snapshots.compareReads()
            let app = NewsReaderApp()
            #expect(app.run(), "the app's queues went quiet")
            app.tearDown()
        }
        let taken = try #require(session?.snapshots.readComparison?.snapshots)
        #expect(taken.count > 20)
        #expect(trace.snapshots == taken)
    }
}
