import Foundation
import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineRender
import PortfolioApp
import Testing

/// The portfolio app (Tests/Apps/Portfolio), the second realistic app, with two documented
/// bugs among operators that cancel early on purpose (`first()`, `prefix(untilOutputFrom:)`,
/// `switchToLatest()`, `retry`): exactly those bugs are found, with the default recording and
/// with snapshots after every call, and each pipeline's picture fits a page.
@Suite("The portfolio app's findings", .serialized)
struct PortfolioAppTests {
    /// Runs the app once under recording and diagnoses the log.
    private func diagnose(options: RecordingOptions) throws -> (TraceLifecycles, [Diagnosis]) {
        let trace = try Lifeline.record(options: options) {
            let app = PortfolioApp()
            #expect(app.run(), "the app's queues went quiet")
            app.tearDown()
        }
        let lifecycles = TraceLifecycles(trace)
        return (lifecycles, TraceAnalyzer().diagnose(lifecycles))
    }

    /// Checks the findings are the app's two bugs, each on the right objects.
    private func expectExactlyTheAppsBugs(_ diagnoses: [Diagnosis], in lifecycles: TraceLifecycles) throws {
        let report = TextDiagnosisReport(trace: lifecycles.trace, diagnoses: diagnoses).render()
        #expect(diagnoses.map(\.code).sorted() == ["demand-exceeded", "retain-cycle"], "\(report)")

        let cycle = try #require(diagnoses.first { $0.code == "retain-cycle" })
        #expect(cycle.message.hasPrefix("Retain cycle: PortfolioModel.cancellables → "), "\(cycle.message)")
        #expect(cycle.message.contains("Assign.object → PortfolioModel"), "\(cycle.message)")

        let exceeded = try #require(diagnoses.first { $0.code == "demand-exceeded" })
        let names = exceeded.objects.compactMap { lifecycles.trace.object($0)?.shortTypeName }
        #expect(names.contains("LegacyQuoteSubscription") && names.contains("PacedQuoteSubscriber"), "\(names)")
    }

    @Test func withTheDefaultRecordingItGivesExactlyItsBugs() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions())
        try expectExactlyTheAppsBugs(diagnoses, in: lifecycles)
        // The whole log, as `lifeline render` draws it first, within a doc page.
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)

        // One picture per pipeline, each within a doc page.
        #expect(try AppPictures.eachPipelineFittingAPage(lifecycles, diagnoses: diagnoses).count >= 8)
    }

    @Test func withSnapshotsAfterEveryCallItGivesExactlyItsBugs() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions(snapshots: .everyCall))
        try expectExactlyTheAppsBugs(diagnoses, in: lifecycles)
        // The whole log, as `lifeline render` draws it first, within a doc page.
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)
    }
}
