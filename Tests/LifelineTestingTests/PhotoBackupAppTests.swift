import Foundation
import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineRender
import PhotoBackupApp
import Testing

/// The photo backup (Tests/Apps/PhotoBackup), the fourth realistic app and the first with
/// real back pressure, with one documented bug (an upload worker that asks for no more photos
/// after a refused one) among subscribers that hold back demand on purpose (an activity feed
/// that pauses until the next timer tick, `flatMap(maxPublishers:)`, a read-ahead buffer) and
/// operators that cancel on purpose (`prefix`, `switchToLatest()`, a gallery closed mid-load):
/// exactly that bug is found, with the default recording and with snapshots after every call,
/// and each pipeline's picture fits a page.
@Suite("The photo backup's findings", .serialized)
struct PhotoBackupAppTests {
    /// Runs the app under recording and diagnoses the log. The backup lives as long as the
    /// app, so the app quits only after the recording stopped, as a recording of a running
    /// app's first moments does.
    private func diagnose(options: RecordingOptions) throws -> (TraceLifecycles, [Diagnosis]) {
        var app: PhotoBackupApp?
        let trace = try Lifeline.record(options: options) {
            app = PhotoBackupApp()
            #expect(app?.run() == true, "the app's queues went quiet")
            app?.tearDown()
        }
        let progress = try #require(app).backupProgress
        #expect(progress.uploaded == [1, 3, 4] && progress.refused == [5], "\(progress)")
        app?.quit()
        let lifecycles = TraceLifecycles(trace)
        return (lifecycles, TraceAnalyzer().diagnose(lifecycles))
    }

    /// Checks the only finding is the stalled upload worker, named by the line that subscribed
    /// it, with the evidence of its last request and the delivery it asked no more after.
    private func expectExactlyTheAppsBug(_ diagnoses: [Diagnosis], in lifecycles: TraceLifecycles) throws {
        let report = TextDiagnosisReport(trace: lifecycles.trace, diagnoses: diagnoses).render()
        #expect(diagnoses.map(\.code) == ["demand-stalled"], "\(report)")

        let stalled = try #require(diagnoses.first { $0.code == "demand-stalled" })
        // Named by the line that subscribed it in both recording modes, though per-call
        // snapshots declare the worker before the recorder sees its subscribe.
        #expect(stalled.message.wholeMatch(of: /UploadWorker #[0-9]+ \(BackupService\.swift:34\) asked for 4 values, received all of them, and asked for no more: .*/) != nil, "\(stalled.message)")
        // What the stall holds back: the buffer got the rest of the library and the scan's
        // completion, and none of it reached the worker.
        #expect(stalled.message.contains(/Upstream, Buffer\.Inner #[0-9]+ received [0-9]+ values \(the last at @[0-9]+\), [1-9][0-9]* more than reached it, and \.finished at @[0-9]+, which never reached it\./), "\(stalled.message)")
        // The fix says what fixes the app: ask again on the failure path too.
        #expect(stalled.fix.contains("call request(_:) on every path that finishes with a value, failures included"), "\(stalled.fix)")
        let names = stalled.objects.compactMap { lifecycles.trace.object($0)?.shortTypeName }
        #expect(names.first == "UploadWorker" && names.contains("ReceiveOn.Inner"), "\(names)")
        // The worker's pipeline is its own, though `BackupService` subscribes it from a sink's
        // closure and its scan logs into the activity screen's pipeline, and still running.
        let pipelines = TracePipelines(lifecycles)
        let cited = pipelines.pipelines(citedBy: stalled).compactMap(pipelines.pipeline)
        #expect(cited.map(\.name) == ["BackupService.swift:34"] && cited.map(\.state) == [.live], "\(cited.map(\.name))")
    }

    @Test func withTheDefaultRecordingItGivesExactlyItsBug() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions())
        try expectExactlyTheAppsBug(diagnoses, in: lifecycles)
        // The whole log, as `lifeline render` draws it first, within a doc page.
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)

        // One picture per pipeline, each within a doc page, each named by the line of the app
        // that subscribed it.
        let pictures = try AppPictures.eachPipelineFittingAPage(lifecycles, diagnoses: diagnoses)
        #expect(pictures.count >= 8)
        for (pipeline, _) in pictures {
            #expect(pipeline.name.wholeMatch(of: /[A-Za-z]+\.swift:[0-9]+( \([0-9]+(st|nd|rd|th) of [0-9]+\))?/) != nil, "\(pipeline.id) is named \(pipeline.name)")
        }
    }

    /// Also the check that a per-call snapshot taken on the upload queue while the disk queue
    /// subscribes the library scan knows the scan's new `LibraryScan` and `HandleEvents.Inner`
    /// by the ids the recorder gave them: it used to declare them again, as plain objects,
    /// and their subscriber–subscription loop read as a retain-cycle warning in about four
    /// runs of this test in ten.
    @Test func withSnapshotsAfterEveryCallItGivesExactlyItsBug() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions(snapshots: .everyCall))
        try expectExactlyTheAppsBug(diagnoses, in: lifecycles)
        // The whole log, as `lifeline render` draws it first, within a doc page.
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)
    }
}
