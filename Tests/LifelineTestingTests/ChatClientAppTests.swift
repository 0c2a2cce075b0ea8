import ChatClientApp
import Foundation
import Lifeline
import LifelineAnalysis
import LifelineLog
@testable import LifelineRender
import Testing

/// The chat client (Tests/Apps/ChatClient), the third realistic app and the first Lifeline was
/// not tuned against, with one documented bug (a token dropped with `_ =`) among operators
/// that cancel on purpose (`timeout` then `retry`, `flatMap(maxPublishers:)`, a shared
/// heartbeat cancelled by its owner, a hand-written subscriber cancelled by hand): exactly
/// that bug is found, with the default recording and with snapshots after every call, and each
/// pipeline's picture fits a page.
@Suite("The chat client's findings", .serialized)
struct ChatClientAppTests {
    /// Runs the app once under recording and diagnoses the log.
    private func diagnose(options: RecordingOptions) throws -> (TraceLifecycles, [Diagnosis]) {
        let trace = try Lifeline.record(options: options) {
            let app = ChatClientApp()
            #expect(app.run(), "the app's queues went quiet")
            app.tearDown()
        }
        let lifecycles = TraceLifecycles(trace)
        return (lifecycles, TraceAnalyzer().diagnose(lifecycles))
    }

    /// Checks the only finding is the dropped read-mark token, on the sink `markAllRead()` made.
    private func expectExactlyTheAppsBug(_ diagnoses: [Diagnosis], in lifecycles: TraceLifecycles) throws {
        let report = TextDiagnosisReport(trace: lifecycles.trace, diagnoses: diagnoses).render()
        #expect(diagnoses.map(\.code) == ["cancelled-immediately"], "\(report)")

        let dropped = try #require(diagnoses.first { $0.code == "cancelled-immediately" })
        #expect(dropped.message.contains("released in ConversationModel.markAllRead"), "\(dropped.message)")
        let names = dropped.objects.compactMap { lifecycles.trace.object($0)?.shortTypeName }
        #expect(names.contains("Sink") && names.contains("ReceiveOn.Inner"), "\(names)")
    }

    @Test func withTheDefaultRecordingItGivesExactlyItsBug() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions())
        try expectExactlyTheAppsBug(diagnoses, in: lifecycles)
        // The whole log, as `lifeline render` draws it first, within a doc page.
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)

        // One picture per pipeline, each within a doc page, each named by the line of the app
        // that subscribed it.
        let drawn = try AppPictures.eachPipelineFittingAPage(lifecycles, diagnoses: diagnoses)
        #expect(drawn.count >= 12)
        for (pipeline, _) in drawn {
            #expect(pipeline.name.wholeMatch(of: /[A-Za-z]+Model\.swift:[0-9]+( \([0-9]+(st|nd|rd|th) of [0-9]+\))?/) != nil, "\(pipeline.id) is named \(pipeline.name)")
        }
        let pictures = drawn.map(\.svg)
        let pipelines = drawn.map(\.pipeline)
        // A folded lane's heading chains the operators as the code does, upstream first, once
        // each although `retry` subscribed the ones above it twice; a `share()` comes first.
        for chain in ["Deferred → SubscribeOn → Timeout → Retry → Map → Catch → ReceiveOn",
                      "Multicast → AnyPublisher → Map → RemoveDuplicates → ReceiveOn"] {
            #expect(pictures.contains { $0.contains(chain) }, "no folded lane reads \(chain)")
        }
        // The `Future`s the contact search's `flatMap` subscribes per value stand upstream of
        // the pipeline's end, where the code puts them, though they come after it.
        let search = try #require(pipelines.first { $0.name.hasPrefix("ContactSearchModel.swift") })
        let chosen = try TraceSelection(pipelines: [search.id.description]).apply(to: lifecycles.trace, diagnoses: diagnoses)
        let lanes = SequenceModel(trace: chosen.trace, diagnoses: [], folding: true, collapsing: true).lanes.map(\.typeLine)
        let future = try #require(lanes.firstIndex(of: "Future")), sink = try #require(lanes.firstIndex(of: "Sink"))
        #expect(future < sink, "\(lanes)")
    }

    @Test func withSnapshotsAfterEveryCallItGivesExactlyItsBug() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions(snapshots: .everyCall))
        try expectExactlyTheAppsBug(diagnoses, in: lifecycles)
        // The whole log, as `lifeline render` draws it first, within a doc page.
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)
    }
}
