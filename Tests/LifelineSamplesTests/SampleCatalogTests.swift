import Foundation
import LifelineSamples
import Testing

extension SampleScenario: CustomTestStringConvertible {
    public var testDescription: String { name }
}

@Suite("The catalog of sample stories")
struct SampleCatalogTests {
    @Test("SampleScenario.all lists the eight stories in gallery order")
    func storyOrder() {
        #expect(SampleScenario.all.map(\.name) == [
            "forgotten-subscription",
            "stored-subscription",
            "returned-cancellable",
            "sink-and-assign",
            "additive-demand",
            "schedulers",
            "dropped-cancellable",
            "retain-cycle",
        ])
    }

    @Test("Every scenario is a runnable folder under samples/", arguments: SampleScenario.all)
    func folderExists(_ scenario: SampleScenario) {
        let samples = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("samples")
        let main = samples.appendingPathComponent(scenario.name).appendingPathComponent("main.swift")
        #expect(FileManager.default.fileExists(atPath: main.path))
    }

    @Test("Only the stories with a bug expect diagnoses")
    func expectedDiagnoses() {
        let expected = Dictionary(
            uniqueKeysWithValues: SampleScenario.all.map { ($0.name, $0.expectedDiagnoses) })
        #expect(expected == [
            "forgotten-subscription": ["subscriber-deallocated-early", "subscription-not-retained"],
            "stored-subscription": [],
            "returned-cancellable": [],
            "sink-and-assign": [],
            "additive-demand": [],
            "schedulers": ["demand-exceeded"],
            "dropped-cancellable": ["cancelled-immediately"],
            "retain-cycle": ["retain-cycle", "leaked-subscription"],
        ])
    }

    @Test("A scenario prints the same lines on every run", arguments: SampleScenario.all)
    func deterministic(_ scenario: SampleScenario) {
        let first = ConsoleTranscript(running: scenario)
        let second = ConsoleTranscript(running: scenario)
        #expect(!first.lines.isEmpty)
        #expect(first.lines == second.lines)
    }

    @Test("The console keeps lines in order and echoes each one as it is printed")
    func consoleEchoes() {
        let echoed = SampleConsole()
        let console = SampleConsole(echo: { echoed.print("echo: \($0)") })
        console.print("first")
        console.print("second")
        #expect(console.lines == ["first", "second"])
        #expect(echoed.lines == ["echo: first", "echo: second"])
    }
}
