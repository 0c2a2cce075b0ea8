import Foundation
import GroceryListApp
import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineRender
import Testing

/// The grocery list app (Tests/Apps/GroceryList), the seventh realistic app, written the way
/// Combine and Swift concurrency are mixed today: `Task { for await x in publisher.values }`
/// loops over `CurrentValueSubject`s and a `@Published` field, an `AsyncStream` bridging a
/// `PassthroughSubject` through `sink` and `onTermination`, `async` calls awaited from tasks
/// that update subjects, `sink` with `[weak self]`. Its two documented bugs are a recipe model
/// that keeps the task that keeps it after its screen let go of it (`retain-cycle`) and a
/// coupon wallet that drops its token with `_ =` (`cancelled-immediately`): exactly those are
/// found, with the default recording, with snapshots after every call, and recording only the
/// pipelines the app marked with `.lifeline(_:)`.
@Suite("The grocery list app's findings", .serialized)
struct GroceryListAppTests {
    /// Runs the app under recording and diagnoses the log. The list screen stays open, so its
    /// tasks' loops are still running when the recording stops.
    ///
    /// The app returns once the closed recipe's model has shown the pantry's last change; its
    /// task then goes back to waiting in `for await` at once, with nothing else to do, and the
    /// stop snapshot is taken after the app's queues drained, a few milliseconds later.
    private func diagnose(options: RecordingOptions) throws -> (TraceLifecycles, [Diagnosis]) {
        var app: GroceryListApp?
        var summary: GroceryListApp.Summary?
        var quiet = false
        let trace = try Lifeline.record(options: options) {
            app = GroceryListApp()
            quiet = app?.run() ?? false
            summary = app?.summary
            app?.tearDown()
        }
        #expect(quiet, "the app did not show what was expected within ten seconds")
        let shown = try #require(summary)
        #expect(shown.rows == ["✓ 2 milk 1.90", "· 1 bread 2.50", "· 1 eggs 3.10", "· 1 flour 1.60"], "\(shown)")
        #expect(shown.totalCents == 720 && shown.status == "Saved (revision 4)" && shown.revisions == 4, "\(shown)")
        #expect(shown.atHome == ["eggs": 3, "milk": 1, "flour": 2] && shown.banner == "20% off flour", "\(shown)")
        #expect(shown.recipeShown == "pancakes: buy eggs, flour", "\(shown)")
        // The two bugs, as the shopper sees them: no coupon, and a recipe model still at work.
        #expect(shown.coupons.isEmpty, "\(shown)")
        #expect(shown.recipeModelOutlivedItsScreen && shown.recipeModelMissing == [], "\(shown)")
        withExtendedLifetime(app) {}
        let lifecycles = TraceLifecycles(trace)
        return (lifecycles, TraceAnalyzer().diagnose(lifecycles))
    }

    /// The line of the app's file `file` that holds `text`.
    private static func line(of text: String, in file: String) throws -> Int {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Apps/GroceryList/\(file)").standardized.path
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        return try #require(lines.firstIndex { $0.contains(text) }) + 1
    }

    /// Checks the findings are exactly the app's two bugs: the recipe model's loop through its
    /// task, named by the task's line and its `for await` line, an error; and the coupon
    /// wallet's dropped token, a warning, named by the line that subscribed it.
    private func expectExactlyTheAppsBugs(_ diagnoses: [Diagnosis], in lifecycles: TraceLifecycles) throws -> Diagnosis {
        let report = TextDiagnosisReport(trace: lifecycles.trace, diagnoses: diagnoses).render()
        #expect(diagnoses.map(\.code).sorted() == ["cancelled-immediately", "retain-cycle"], "\(report)")

        let cycle = try #require(diagnoses.first { $0.code == "retain-cycle" }, "\(report)")
        let taskLine = try Self.line(of: "task = Task {", in: "RecipeModel.swift")
        let loopLine = try Self.line(of: "for await stock in pantry.$stock.lifeline(\"recipe pantry\").values", in: "RecipeModel.swift")
        #expect(cycle.severity == .error, "\(cycle)")
        // The loop is the model and its task, whichever of the two the sentence starts from.
        #expect(cycle.message.firstMatch(of: #/^Retain cycle: (RecipeModel\.task → Task( #[0-9]+)?\.operation \(closure\) → RecipeModel|Task( #[0-9]+)?\.operation \(closure\) → RecipeModel\.task → Task( #[0-9]+)?)\. /#) != nil,
                "\(cycle.message)")
        let kept = cycle.objects.compactMap { lifecycles.trace.object($0)?.shortTypeName }
        #expect(Set(kept) == ["Task", "RecipeModel"], "\(kept)")
        #expect(cycle.message.contains("The Task at RecipeModel.swift:\(taskLine) is suspended in a `for await` loop over "
            + "AsyncPublisher.Iterator.Inner \"recipe pantry\" #"), "\(cycle.message)")
        #expect(cycle.message.contains("(RecipeModel.swift:\(loopLine)): it runs until that publisher completes"), "\(cycle.message)")
        #expect(cycle.fix.hasPrefix("Break the loop: cancel the Task at RecipeModel.swift:\(taskLine) on teardown"), "\(cycle.fix)")
        // Its evidence starts at the loop's subscribe call.
        let first = try #require(cycle.evidence.first.flatMap(lifecycles.event))
        guard case .subscribe(_, let subscriber) = first.kind else {
            Issue.record("the first evidence is \(first)")
            return cycle
        }
        #expect(lifecycles.trace.object(subscriber)?.shortTypeName == "AsyncPublisher.Iterator.Inner")

        let pipelines = TracePipelines(lifecycles)
        let loops = pipelines.pipelines(citedBy: cycle).compactMap(pipelines.pipeline)
        #expect(loops.map(\.name) == ["RecipeModel.swift:\(loopLine)"], "\(loops.map(\.name))")

        // The pipeline is named by its `.lifeline("coupons")` line, and the token by the line
        // of the `sink` that made it.
        let dropped = try #require(diagnoses.first { $0.code == "cancelled-immediately" }, "\(report)")
        let hopLine = try Self.line(of: ".lifeline(\"coupons\")", in: "CouponWallet.swift")
        let sinkLine = try Self.line(of: ".sink { [weak self] code in", in: "CouponWallet.swift")
        #expect(dropped.severity == .warning, "\(dropped)")
        #expect(dropped.message.contains("its AnyCancellable was released in CouponWallet.start at CouponWallet.swift:"), "\(dropped.message)")
        #expect(dropped.message.contains("the function that subscribed Sink \"coupons\" #")
            && dropped.message.contains("(CouponWallet.swift:\(hopLine)) at line \(sinkLine)."), "\(dropped.message)")
        let cited = pipelines.pipelines(citedBy: dropped).compactMap(pipelines.pipeline)
        #expect(cited.map(\.name) == ["CouponWallet.swift:\(hopLine)"], "\(cited.map(\.name))")
        return cycle
    }

    @Test func withTheDefaultRecordingItGivesExactlyItsBugs() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions())
        let cycle = try expectExactlyTheAppsBugs(diagnoses, in: lifecycles)
        // One snapshot, at stop: the loop alone held the model then; when that began is unknown.
        #expect(cycle.message.contains("In that snapshot only the loop and Combine's own objects held them"), "\(cycle.message)")
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)
        let pictures = try AppPictures.eachPipelineFittingAPage(lifecycles, diagnoses: diagnoses)
        for (pipeline, _) in pictures {
            #expect(pipeline.name.wholeMatch(of: /[A-Za-z]+\.swift:[0-9]+( \([0-9]+(st|nd|rd|th) of [0-9]+\))?/) != nil, "\(pipeline.id) is named \(pipeline.name)")
        }
    }

    @Test func withSnapshotsAfterEveryCallItGivesExactlyItsBugs() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions(snapshots: .everyCall))
        _ = try expectExactlyTheAppsBugs(diagnoses, in: lifecycles)
        AppPictures.wholeLogFittingAPage(lifecycles, diagnoses: diagnoses)
    }

    /// Recording only the hops the app marked with `.lifeline(_:)`: its six marked pipelines,
    /// and the same two bugs.
    @Test func recordingOnlyItsLifelineHopsItGivesExactlyItsBugs() throws {
        let (lifecycles, diagnoses) = try diagnose(options: RecordingOptions(automatic: false))
        _ = try expectExactlyTheAppsBugs(diagnoses, in: lifecycles)
        let names = TracePipelines(lifecycles).pipelines.map(\.name).sorted()
        let marked = try [
            ("CouponWallet.swift", ".lifeline(\"coupons\")"), ("DealsFeed.swift", ".lifeline(\"deals\")"),
            ("ListViewModel.swift", ".lifeline(\"list\")"), ("ListViewModel.swift", ".lifeline(\"pantry\")"),
            ("ListViewModel.swift", ".lifeline(\"sync state\")"), ("RecipeModel.swift", ".lifeline(\"recipe pantry\")"),
        ].map { file, text in "\(file):\(try Self.line(of: text, in: file))" }
        #expect(names == marked.sorted(), "\(names)")
    }
}
