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

    /// Checks the only finding is the chunk writer called on two threads at once, its
    /// pipeline named by the line that subscribed it, with the two overlapping calls on two
    /// threads as evidence.
    ///
    /// The writer asks for every chunk inside its `receive(subscription:)`, so which calls
    /// overlap first depends on timing: usually two chunks delivered on two connections, but
    /// when a connection delivers a chunk before that handshake has returned (per-call snapshots
    /// make it slower), the result overtook the handshake. Both are the app's bug; the log says
    /// which one happened, and the finding must tell exactly that one.
    /// The line (1-based) of the first line containing `text` in the app's file `file`.
    private static func line(of text: String, in file: String) throws -> Int {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Apps/DownloadCenter/\(file)").standardized.path
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        return try #require(lines.firstIndex { $0.contains(text) }) + 1
    }

    private func expectExactlyTheAppsBug(_ diagnoses: [Diagnosis], in lifecycles: TraceLifecycles) throws {
        let writerSubscribed = "TransferListModel.swift:\(try Self.line(of: ".subscribe(writer)", in: "TransferListModel.swift"))"
        let rowSink = "TransferListModel.swift:\(try Self.line(of: "self?.rowProgress[file.name] = share", in: "TransferListModel.swift"))"
        let report = TextDiagnosisReport(trace: lifecycles.trace, diagnoses: diagnoses).render()
        #expect(diagnoses.map(\.code) == ["concurrent-delivery"], "\(report)")
        #expect(report.contains("subscribed in TransferListModel.start at \(writerSubscribed)"), "\(report)")

        let concurrent = try #require(diagnoses.first { $0.code == "concurrent-delivery" })
        // With snapshots, a snapshot meets the writer before it is subscribed; the finding still
        // names it by the line that subscribed it.
        #expect(concurrent.message.hasPrefix("ChunkWriter #") && concurrent.message.contains("(\(writerSubscribed))"), "\(concurrent.message)")
        #expect(concurrent.message.contains("downloads.connection"), "\(concurrent.message)")
        let names = concurrent.objects.compactMap { lifecycles.trace.object($0)?.shortTypeName }
        #expect(names == ["ChunkWriter", "ChunkFetch", "ChunkedDownload"], "\(names)")
        if try chunkOvertookTheHandshake(of: concurrent.objects[0], in: lifecycles) {
            #expect(concurrent.message.contains("The result of ChunkFetch #") && concurrent.message.contains("overtook the handshake"),
                    "\(concurrent.message)")
            #expect(concurrent.fix.hasPrefix("Send on the queue that subscribes, or subscribe on the queue that sends: deliver the results of ChunkFetch #")
                    && concurrent.fix.contains("subscribe(on:) on downloads.connection"), "\(concurrent.fix)")
        } else {
            #expect(!concurrent.message.contains("overtook"), "\(concurrent.message)")
            #expect(concurrent.fix.hasPrefix("Deliver to a subscriber from one thread at a time: serialize the sends of ChunkFetch #"),
                    "\(concurrent.fix)")
        }
        // The overlapping calls and the end of the first, and any snapshot taken inside it, on
        // exactly two threads.
        let threads = Set(concurrent.evidence.compactMap { lifecycles.event($0)?.thread })
        #expect(threads.count == 2, "\(concurrent.evidence) ran on \(threads)")
        let pipelines = TracePipelines(lifecycles)
        let cited = pipelines.pipelines(citedBy: concurrent).compactMap(pipelines.pipeline)
        #expect(cited.map(\.name) == [writerSubscribed], "\(cited.map(\.name))")
        // The two progress rows `watch(_:)` subscribed at one line are told apart.
        let rows = pipelines.pipelines(named: rowSink).map(\.name)
        #expect(rows == ["\(rowSink) (1st of 2)", "\(rowSink) (2nd of 2)"], "\(rows)")
    }

    /// Whether a chunk reached `writer` on another thread while its `receive(subscription:)`
    /// was still running, read from the log.
    private func chunkOvertookTheHandshake(of writer: TraceObjectID, in lifecycles: TraceLifecycles) throws -> Bool {
        let events = lifecycles.trace.events
        let handshake = try #require(events.first { event in
            guard event.phase == .begin, case .receiveSubscription(writer, _) = event.kind else { return false }
            return true
        })
        let end = try #require(lifecycles.calls.call(at: handshake.seq)?.end, "the writer's handshake never returned")
        return events.contains { event in
            guard event.phase == .begin, case .value(writer, _, _) = event.kind else { return false }
            return event.seq > handshake.seq && event.seq < end && event.thread != handshake.thread
        }
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
