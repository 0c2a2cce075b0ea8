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

    private static let samplesFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("samples")

    @Test("Every scenario is a runnable folder under samples/", arguments: SampleScenario.all)
    func folderExists(_ scenario: SampleScenario) {
        let main = Self.samplesFolder
            .appendingPathComponent(scenario.name).appendingPathComponent("main.swift")
        #expect(FileManager.default.fileExists(atPath: main.path))
    }

    @Test(
        "samples/README.md shows exactly what each scenario prints",
        arguments: SampleScenario.all)
    func readmeOutput(_ scenario: SampleScenario) throws {
        let readme = try String(
            contentsOf: Self.samplesFolder.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(
            readme.components(separatedBy: "\n## ").first { $0.hasPrefix("\(scenario.name)\n") })
        let output = try #require(
            section.components(separatedBy: "Expected output:\n\n```\n").last?
                .components(separatedBy: "\n```").first)
        #expect(output.components(separatedBy: "\n") == ConsoleTranscript(running: scenario).lines)
    }

    @Test("Only the stories with a bug expect diagnoses")
    func expectedDiagnoses() {
        let expected = Dictionary(
            uniqueKeysWithValues: SampleScenario.all.map { ($0.name, $0.expectedDiagnoses) })
        #expect(expected == [
            "forgotten-subscription": ["subscription-not-retained"],
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
