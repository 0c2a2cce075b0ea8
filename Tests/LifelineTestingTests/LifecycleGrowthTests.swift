import Foundation
import Lifeline
import LifelineAnalysis
import LifelineTesting
import Testing

/// `expectNoLifecycleGrowth`: a screen opened and closed again and again that leaves its model
/// behind each time fails, naming the run where the growth began, the line that made the
/// pipelines and what holds the models; the same screen fixed passes.
@Suite("Lifecycle growth over repeated runs", .serialized)
struct LifecycleGrowthTests {
    /// The line of QuoteScreen.swift that holds `text`.
    private func line(of text: String) throws -> Int {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("ThirdPartyStyle/QuoteScreen.swift"), encoding: .utf8)
        return try #require(source.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(text) }) + 1
    }

    /// Opens the quote screen, lets a price arrive, and closes it.
    private func openAndClose(_ service: PriceService, capturingWeakly: Bool) {
        let screen = QuoteScreen(service: service, capturingWeakly: capturingWeakly)
        screen.open("ACME")
        service.publish("ACME", at: Double.random(in: 1...100))
        screen.close()
    }

    @Test(arguments: [5, 10])
    func aScreenThatLeaksItsModelEachTimeIsCaught(iterations: Int) throws {
        let service = PriceService()
        var recorded: LifecycleFindings?
        let call = #line + 2
        try withKnownIssue {
            recorded = try expectNoLifecycleGrowth(iterations: iterations) {
                openAndClose(service, capturingWeakly: false)
            }
        } matching: { issue in
            issue.sourceLocation?.line == call
        }
        let findings = try #require(recorded)
        let sink = try line(of: "quotes.sink { quote in self.quote = quote }")
        // One finding: the model and its pipelines hold each other.
        #expect(findings.problems.map(\.code) == ["lifecycle-growth"], "\(findings.failureMessage)")
        let growth = try #require(findings.problems.first)
        #expect(growth.severity == .error)
        let counts = (1...iterations).map(String.init).joined(separator: ", ")
        #expect(growth.message.hasPrefix("Each run of the scenario left more behind than the run before, from run 2 of "
            + "\(iterations) on: pipelines made at QuoteScreen.swift:\(sink) (still subscribed after each run: \(counts)); "
            + "QuoteModel objects (alive after each run: \(counts))"), "\(growth.message)")
        // What held the first pipeline left since the growth began: its own model's loop, the
        // sink's closure holding the model that holds the sink's AnyCancellable.
        #expect(growth.message.contains("(QuoteScreen.swift:\(sink)) is held by a retain cycle that nothing else in the graph "
            + "holds: QuoteModel #"), "\(growth.message)")
        #expect(growth.message.contains(".receiveValue (closure) → QuoteModel #"), "\(growth.message)")
        // The evidence: the subscribes of the pipelines left behind, from run 2 on.
        let kinds = growth.evidence.compactMap { seq in findings.trace.events.first { $0.seq == seq }?.kind.name }
        #expect(kinds == Array(repeating: "subscribe", count: min(iterations - 1, 5)) + ["mark"], "\(kinds)")
        #expect(findings.failureMessage.hasPrefix("What the scenario left behind grew with its runs:"), "\(findings.failureMessage)")
    }

    @Test func growthThatBeginsLaterIsNamedByTheRunItBeganIn() throws {
        let service = PriceService()
        var runs = 0
        var recorded: LifecycleFindings?
        withKnownIssue {
            recorded = try expectNoLifecycleGrowth(iterations: 8) {
                runs += 1
                openAndClose(service, capturingWeakly: runs < 4)
            }
        }
        let growth = try #require(recorded?.problems.first)
        #expect(growth.message.hasPrefix("Each run of the scenario left more behind than the run before, from run 4 of 8 on: "
            + "pipelines made at QuoteScreen.swift:\(try line(of: "quotes.sink { quote in self.quote = quote }")) (still "
            + "subscribed after each run: 0, 0, 0, 1, 2, 3, 4, 5); QuoteModel objects (alive after each run: 0, 0, 0, 1, 2, "
            + "3, 4, 5)"), "\(growth.message)")
    }

    @Test func theSameScreenFixedPassesFiftyRuns() throws {
        let service = PriceService()
        let findings = try expectNoLifecycleGrowth(iterations: 50) {
            openAndClose(service, capturingWeakly: true)
        }
        #expect(findings.diagnoses.isEmpty)
        // Each run was counted: one snapshot after each.
        #expect(findings.trace.snapshots.count { $0.label.hasPrefix("after run ") } == 50)
    }

    @Test func aScreenThatKeepsItsLastModelsUpToALimitDoesNotGrow() throws {
        let service = PriceService()
        var recent: [QuoteScreen] = []
        try expectNoLifecycleGrowth(iterations: 12) {
            let screen = QuoteScreen(service: service, capturingWeakly: true)
            screen.open("ACME")
            recent.append(screen)
            if recent.count > 3 { recent.removeFirst() }
        }
        #expect(recent.count == 3)
    }

    @Test func tooFewRunsToShowGrowthIsAnError() throws {
        #expect(throws: LifecycleCheckError.tooFewIterations(3, warmUp: 1)) {
            try expectNoLifecycleGrowth(iterations: 3) {}
        }
    }
}
