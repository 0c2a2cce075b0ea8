import Foundation
import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineRender
import NewsReaderApp
import Testing

/// The news reader in Tests/Apps, recorded by the real recorder: every finding names the line
/// of the app's own code that made the pipeline, and `cancelled-immediately` is decided by who
/// cancelled. Expected lines are found in the app's source text, never written here.
@Suite(.serialized) struct NewsReaderCallSiteTests {
    /// One recording of the whole app, shared by the tests.
    static let recording: Result<Trace, any Error> = Result {
        try Lifeline.record {
            let app = NewsReaderApp()
            app.run()
            app.tearDown()
        }
    }

    static var trace: Trace {
        get throws { try recording.get() }
    }

    /// The app's source file `name`.
    static func source(_ name: String) throws -> [String] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Apps/NewsReader/\(name)").standardized
        return try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
    }

    /// The line (1-based) of the first line containing `call` after the line containing
    /// `declaration` in the app's file `name`.
    static func line(of call: String, after declaration: String, in name: String) throws -> Int {
        let lines = try source(name)
        let start = try #require(lines.firstIndex { $0.contains(declaration) }, "no \(declaration) in \(name)")
        let index = try #require(lines[start...].firstIndex { $0.contains(call) }, "no \(call) after \(declaration)")
        return index + 1
    }

    static func diagnoses() throws -> [Diagnosis] {
        try TraceAnalyzer().diagnose(trace)
    }

    @Test func theDroppedLocalSetIsFoundAndNamedByTheLineThatSubscribed() throws {
        let trace = try Self.trace
        let subscribed = try Self.line(of: ".sink", after: "func watchBadgeWhileLoading", in: "HomeScreenModel.swift")
        let sink = try #require(trace.objects.values.first {
            $0.shortTypeName == "Sink" && $0.sourceLocation?.fileName == "HomeScreenModel.swift" && $0.sourceLocation?.line == subscribed
        })
        #expect(sink.sourceLocation?.function?.hasPrefix("HomeScreenModel.watchBadgeWhileLoading") == true)
        let found = try Self.diagnoses().filter { $0.code == "cancelled-immediately" }
        #expect(found.count == 1, "\(found.map(\.message))")
        let diagnosis = try #require(found.first)
        #expect(diagnosis.objects.contains(sink.id))
        let released = try Self.line(of: "}", after: "status.send(\"loading\")", in: "HomeScreenModel.swift")
        #expect(diagnosis.message.contains("released in HomeScreenModel.watchBadgeWhileLoading at HomeScreenModel.swift:\(released)"))
    }

    @Test func theDeliberateCancelInPeekSettingsIsNotAFinding() throws {
        let trace = try Self.trace
        let peekLine = try Self.line(of: ".sink", after: "func peekSettings", in: "HomeScreenModel.swift")
        let peekSink = try #require(trace.objects.values.first {
            $0.shortTypeName == "Sink" && $0.sourceLocation?.fileName == "HomeScreenModel.swift" && $0.sourceLocation?.line == peekLine
        })
        let cancels = trace.events.filter { event in
            guard case .cancel(let subscription) = event.kind, event.phase == .begin else { return false }
            return trace.object(subscription)?.sourceLocation == peekSink.sourceLocation
        }
        #expect(cancels.compactMap { trace.cancelCause(of: $0) }.contains(.called))
        let named = try Self.diagnoses().filter { $0.objects.contains(peekSink.id) }
        #expect(named.isEmpty, "\(named.map(\.message))")
    }

    @Test func everySubscriberOfTheAppIsNamedByTheLineThatSubscribedIt() throws {
        let trace = try Self.trace
        let expected = [
            ("SearchViewModel.swift", try Self.line(of: ".sink", after: "init(backend: NewsBackend, queues", in: "SearchViewModel.swift")),
            ("ClockModel.swift", try Self.line(of: ".sink", after: "cancellable = ticks", in: "ClockModel.swift")),
            ("ArticleStore.swift", try Self.line(of: ".sink", after: "init(backend: NewsBackend)", in: "ArticleStore.swift")),
            ("HomeScreenModel.swift", try Self.line(of: ".sink", after: "init(store: ArticleStore", in: "HomeScreenModel.swift")),
            ("HomeScreenModel.swift", try Self.line(of: ".sink", after: "func loadProfile", in: "HomeScreenModel.swift")),
            ("NewsReaderApp.swift", try Self.line(of: ".subscribe(analytics)", after: "func run()", in: "NewsReaderApp.swift")),
        ]
        let places = Set(trace.objects.values.filter { $0.role == .subscriber }.compactMap { object in
            object.sourceLocation.flatMap { location in location.line.map { "\(location.fileName ?? ""):\($0)" } }
        })
        for (file, line) in expected {
            #expect(places.contains("\(file):\(line)"), "no subscriber made at \(file):\(line) in \(places.sorted())")
        }
        // Value-type subscriptions are left unnamed: one value can serve many pipelines
        // (`Subscriptions.empty`), so the line that met it first would name the others wrongly.
        let unnamed = trace.objects.values.filter { object in
            (object.role == .subscriber || (object.role == .subscription && object.lifetimeTracked)) && object.sourceLocation == nil
        }
        #expect(unnamed.isEmpty, "\(unnamed.map(\.displayName))")
    }

    @Test func theAnalyticsSubscribersFindingsNameTheLineThatSubscribedItAndItsOwnRequest() throws {
        let trace = try Self.trace
        let subscribed = try Self.line(of: ".subscribe(analytics)", after: "func run()", in: "NewsReaderApp.swift")
        let requested = try Self.line(of: "subscription.request", after: "func receive(subscription", in: "AnalyticsSubscriber.swift")
        let analytics = try #require(trace.objects.values.first { $0.shortTypeName == "AnalyticsSubscriber" })
        #expect(analytics.sourceLocation?.fileAndLine == "NewsReaderApp.swift:\(subscribed)")
        for diagnosis in try Self.diagnoses() where diagnosis.objects.contains(analytics.id) {
            #expect(diagnosis.message.contains("AnalyticsSubscriber #\(analytics.id.rawValue) (NewsReaderApp.swift:\(subscribed))"))
        }
        let lifecycle = try #require(TraceLifecycles(trace).lifecycles(ofSubscriber: analytics.id).first)
        let finding = Diagnosis(code: "example", severity: .error, objects: [analytics.id], evidence: [], message: "m", fix: "f", hop: lifecycle.hop)
        let report = TextDiagnosisReport(trace: trace, diagnoses: [finding]).render()
        #expect(report.contains(
            "→ AnalyticsSubscriber #\(analytics.id.rawValue), subscribed in NewsReaderApp.run at NewsReaderApp.swift:\(subscribed), "
                + "requested in AnalyticsSubscriber.receive(subscription:) at AnalyticsSubscriber.swift:\(requested)"
        ), "\(report)")
    }

    @Test func theTimelineAndTheJSONReportCarryTheCallSites() throws {
        let trace = try Self.trace
        let searchLine = try Self.line(of: ".sink", after: "init(backend: NewsBackend, queues", in: "SearchViewModel.swift")
        let timeline = TimelineRenderer(showsTimes: false).render(trace)
        #expect(timeline.contains("subscribed in SearchViewModel.init at SearchViewModel.swift:\(searchLine)"))
        #expect(timeline.contains("Sink #") && timeline.contains("(SearchViewModel.swift:\(searchLine)).receive("))
        #expect(timeline.contains("cancel(): called in HomeScreenModel.peekSettings at HomeScreenModel.swift:"))
        let watchLine = try Self.line(of: ".sink", after: "func watchBadgeWhileLoading", in: "HomeScreenModel.swift")
        #expect(timeline.contains(".cancel(): its AnyCancellable was released in HomeScreenModel.watchBadgeWhileLoading at HomeScreenModel.swift:"))
        let sink = try #require(trace.objects.values.first {
            $0.shortTypeName == "Sink" && $0.sourceLocation?.fileName == "HomeScreenModel.swift" && $0.sourceLocation?.line == watchLine
        })
        let finding = Diagnosis(code: "example", severity: .warning, objects: [sink.id], evidence: [], message: "m", fix: "f")
        let json = JSONDiagnosisReport(trace: trace, diagnoses: [finding]).render()
        #expect(json.contains("\"function\" : \"HomeScreenModel.watchBadgeWhileLoading(_:)\""))
        #expect(json.contains("\"source\" : \"HomeScreenModel.swift:\(watchLine)\""))
    }
}
