import AccountSettingsApp
import Foundation
import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineRender
import Testing

/// The account settings app (Tests/Apps/AccountSettings), the sixth realistic app, written as
/// SwiftUI view models are: `ObservableObject`s with `@Published` fields, pipelines that
/// `assign(to:)` into them with no `AnyCancellable` (a debounced check through
/// `switchToLatest`, `tryMap` and `catch` inside a `flatMap`), `objectWillChange` observed with
/// `receive(on:)`, `flatMap(maxPublishers: .max(1))` over `Future`s, `subscribe(on:)`,
/// `first()` on a `CurrentValueSubject`, requests tracked under their own keys until they
/// complete (a cached one completing inside `sink`), `handleEvents`, a parent forwarding its
/// child's `objectWillChange`, `prefix(untilOutputFrom:)` and `NotificationCenter`'s publisher. Its one documented bug is a profile model that keeps itself alive through
/// `assign(to:on: self)`: exactly that is found, with the default recording and with
/// snapshots after every call, and each pipeline's picture fits a page.
@Suite("The account settings app's findings", .serialized)
struct AccountSettingsAppTests {
    /// Runs the app under recording and diagnoses the log.
    private func diagnose(options: RecordingOptions) throws -> (TraceLifecycles, [Diagnosis]) {
        var app: AccountSettingsApp?
        var summary: AccountSettingsApp.Summary?
        let trace = try Lifeline.record(options: options) {
            app = AccountSettingsApp()
            #expect(app?.run() == true, "the app's queues went quiet")
            summary = app?.summary
            app?.tearDown()
        }
        let shown = try #require(summary)
        #expect(shown.registered == ["alice7"], "\(shown)")
        #expect(shown.messages == ["Refused: alice7-example.org is not an e-mail address", "Welcome, alice7"], "\(shown)")
        #expect(shown.drafts == ["alice7 <alice7@example.org>"], "\(shown)")
        #expect(shown.formReleased && shown.profileModelOutlivedItsScreen && shown.lastStatus == "Status: away", "\(shown)")
        let profile = try #require(shown.profile)
        #expect(profile.header == "Alice7 · dark mode, weekly digest" && profile.token == "token-alice7", "\(profile)")
        #expect(profile.avatars.sorted() == ["[B]", "[C]", "[C]", "[D]"] && profile.loadsInFlight == 0, "\(profile)")
        withExtendedLifetime(app) {}
        let lifecycles = TraceLifecycles(trace)
        return (lifecycles, TraceAnalyzer().diagnose(lifecycles))
    }

    /// Checks the only finding is the profile model's loop through `assign(to:on:)`, named by
    /// the line that made it, its pipeline named by that line, and that nothing outside the
    /// loop held it when recording stopped.
    private func expectExactlyTheAppsBug(_ diagnoses: [Diagnosis], in lifecycles: TraceLifecycles) throws -> Diagnosis {
        let report = TextDiagnosisReport(trace: lifecycles.trace, diagnoses: diagnoses).render()
        #expect(diagnoses.map(\.code) == ["retain-cycle"], "\(report)")
        let cycle = try #require(diagnoses.first)
        #expect(cycle.message.contains("ProfileModel.cancellables → Set<AnyCancellable> → AnyCancellable → Assign.object → ProfileModel"), "\(cycle.message)")
        #expect(cycle.message.contains("(ProfileModel.swift:22)"), "\(cycle.message)")
        #expect(cycle.message.lowercased().hasSuffix("nothing in the program can cancel the subscription any more."), "\(cycle.message)")
        let pipelines = TracePipelines(lifecycles)
        let cited = pipelines.pipelines(citedBy: cycle).compactMap(pipelines.pipeline)
        #expect(cited.map(\.name) == ["ProfileModel.swift:22"], "\(cited.map(\.name))")
        return cycle
    }

    @Test func withTheDefaultRecordingItGivesExactlyItsBug() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions())
        let cycle = try expectExactlyTheAppsBug(diagnoses, in: lifecycles)
        // One snapshot, at stop: the loop alone held the model then; when that began is unknown.
        #expect(cycle.message.contains("In that snapshot only the loop and Combine's own objects held them"), "\(cycle.message)")
        // The whole log, as `lifeline render` draws it first, within a doc page.
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)

        // One picture per pipeline, each within a doc page, each named by the line of the app
        // that subscribed it: the `assign(to:)` pipelines too, which have no AnyCancellable.
        let pictures = try AppPictures.eachPipelineFittingAPage(lifecycles, diagnoses: diagnoses)
        let names = pictures.map(\.pipeline.name)
        // The sign-up screen opens twice: its pipelines are told apart by their order.
        let availability = try Self.line(of: ".assign(to: &$availability)", in: "SignUpForm.swift")
        let strength = try Self.line(of: ".assign(to: &$strength)", in: "SignUpForm.swift")
        #expect(names.contains("SignUpForm.swift:\(availability) (1st of 2)"), "\(names)")
        #expect(names.contains("SignUpForm.swift:\(strength) (2nd of 2)"), "\(names)")
        for (pipeline, _) in pictures {
            #expect(pipeline.name.wholeMatch(of: /[A-Za-z]+\.swift:[0-9]+( \([0-9]+(st|nd|rd|th) of [0-9]+\))?/) != nil, "\(pipeline.id) is named \(pipeline.name)")
        }
    }

    /// The line of the app's file `file` that holds `text`.
    private static func line(of text: String, in file: String) throws -> Int {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Apps/AccountSettings/\(file)").standardized.path
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        return try #require(lines.firstIndex { $0.contains(text) }) + 1
    }

    /// With a snapshot after every call, the finding says when the screen let go of its model
    /// and cites the status line the model still took for nobody after that.
    @Test func withSnapshotsAfterEveryCallItTellsWhenTheModelOutlivedItsScreen() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions(snapshots: .everyCall))
        let cycle = try expectExactlyTheAppsBug(diagnoses, in: lifecycles)
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)
        let released = try #require(
            cycle.message.firstMatch(of: /ProfileScreen #[0-9]+ held ProfileModel #[0-9]+ \(ProfileScreen\.model\) until snapshot ([0-9]+) \(after @([0-9]+)\), and no longer in snapshot ([0-9]+) \(after @([0-9]+)\)/),
            "\(cycle.message)"
        )
        let (owned, free) = (try #require(Int(released.output.1)), try #require(Int(released.output.3)))
        #expect(owned < free)
        let freeSeq = try #require(UInt64(released.output.4))
        let value = try #require(cycle.message.firstMatch(of: /yet the subscription delivered 1 more value \(@([0-9]+)\)/), "\(cycle.message)")
        let delivered = try #require(UInt64(value.output.1))
        #expect(delivered > freeSeq && cycle.evidence.last == delivered)
        guard case .value(let subscriber, _, _) = try #require(lifecycles.event(delivered)).kind else {
            Issue.record("@\(delivered) is not a value delivery")
            return
        }
        #expect(lifecycles.trace.object(subscriber)?.shortTypeName == "Assign")
        #expect(cycle.message.contains("They outlived what owned them"), "\(cycle.message)")
    }
}
