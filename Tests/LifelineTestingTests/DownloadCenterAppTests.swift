import DownloadCenterApp
import Foundation
import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineRender
import Testing

/// The download center (Tests/Apps/DownloadCenter), the fifth realistic app, with one
/// documented bug (a parallel chunk download that calls its writer from several workers at
/// once) among code that looks like other rules' bugs but is correct: progress delivered
/// through `receive(on:)` and cancelled from another thread, a subject sent to after it
/// finished, a `Future` resolved before anyone subscribed, `retry` subscribing the same
/// subscriber three times, `timeout`, `multicast(subject:)` with `connect()`, `autoconnect()`,
/// an `AnySubscriber` that returns `.none` and cancels, and a details sheet released while its
/// request is pending: exactly that bug is found, with the default recording and with snapshots
/// after every call, and each pipeline's picture fits a page.
@Suite("The download center's findings", .serialized)
struct DownloadCenterAppTests {
    /// Runs the app under recording and diagnoses the log. The status bar lives as long as the
    /// app, so its pipelines are still running when the recording stops.
    private func diagnose(options: RecordingOptions) throws -> (TraceLifecycles, [Diagnosis]) {
        var app: DownloadCenterApp?
        var summary: DownloadCenterApp.Summary?
        let trace = try Lifeline.record(options: options) {
            app = DownloadCenterApp()
            #expect(app?.run() == true, "the app's queues went quiet")
            summary = app?.summary
            app?.tearDown()
        }
        let shown = try #require(summary)
        #expect(shown.downloaded == ["notes.pdf", "photo.raw", "podcast.m4a", "song.mp3"], "\(shown)")
        #expect(shown.largeBytes == 6_000 && shown.totalBytes == 10_500 && shown.manifests == ["ubuntu.iso"], "\(shown)")
        withExtendedLifetime(app) {}
        let lifecycles = TraceLifecycles(trace)
        return (lifecycles, TraceAnalyzer().diagnose(lifecycles))
    }

    /// Checks the only finding is the chunk writer called on two connections at once, its
    /// pipeline named by the line that subscribed it, with the two overlapping calls on two
    /// threads as evidence.
    private func expectExactlyTheAppsBug(_ diagnoses: [Diagnosis], in lifecycles: TraceLifecycles) throws {
        let report = TextDiagnosisReport(trace: lifecycles.trace, diagnoses: diagnoses).render()
        #expect(diagnoses.map(\.code) == ["concurrent-delivery"], "\(report)")
        #expect(report.contains("subscribed in TransferListModel.start at TransferListModel.swift:53"), "\(report)")

        let concurrent = try #require(diagnoses.first { $0.code == "concurrent-delivery" })
        // With snapshots, a snapshot meets the writer before it is subscribed; the finding still
        // names it by the line that subscribed it.
        #expect(concurrent.message.hasPrefix("ChunkWriter #") && concurrent.message.contains("(TransferListModel.swift:53)"), "\(concurrent.message)")
        #expect(concurrent.message.contains("downloads.connection"), "\(concurrent.message)")
        #expect(concurrent.fix.contains("serialize the sends of ChunkFetch"), "\(concurrent.fix)")
        let names = concurrent.objects.compactMap { lifecycles.trace.object($0)?.shortTypeName }
        #expect(names == ["ChunkWriter", "ChunkFetch", "ChunkedDownload"], "\(names)")
        let threads = concurrent.evidence.prefix(2).compactMap { lifecycles.event($0)?.thread }
        #expect(threads.count == 2 && threads[0] != threads[1], "\(threads)")
        let pipelines = TracePipelines(lifecycles)
        let cited = pipelines.pipelines(citedBy: concurrent).compactMap(pipelines.pipeline)
        #expect(cited.map(\.name) == ["TransferListModel.swift:53"], "\(cited.map(\.name))")
        // The two progress rows `watch(_:)` subscribed at one line are told apart.
        let rows = pipelines.pipelines(named: "TransferListModel.swift:63").map(\.name)
        #expect(rows == ["TransferListModel.swift:63 (1st of 2)", "TransferListModel.swift:63 (2nd of 2)"], "\(rows)")
    }

    @Test func withTheDefaultRecordingItGivesExactlyItsBug() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions())
        try expectExactlyTheAppsBug(diagnoses, in: lifecycles)
        // The whole log, as `lifeline render` draws it first, within a doc page.
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)

        // One picture per pipeline, each within a doc page, each named by the line of the app
        // that subscribed it.
        let pictures = try AppPictures.eachPipelineFittingAPage(lifecycles, diagnoses: diagnoses)
        #expect(pictures.count >= 10)
        for (pipeline, _) in pictures {
            #expect(pipeline.name.wholeMatch(of: /[A-Za-z]+\.swift:[0-9]+( \([0-9]+(st|nd|rd|th) of [0-9]+\))?/) != nil, "\(pipeline.id) is named \(pipeline.name)")
        }
    }

    @Test func withSnapshotsAfterEveryCallItGivesExactlyItsBug() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions(snapshots: .everyCall))
        try expectExactlyTheAppsBug(diagnoses, in: lifecycles)
        // The whole log, as `lifeline render` draws it first, within a doc page.
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)
    }
}
