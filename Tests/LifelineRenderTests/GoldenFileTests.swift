import LifelineAnalysis
import LifelineLog
import LifelineOwnershipDOT
import Testing
@testable import LifelineRender

/// Every text format of every sample trace, compared with its reviewed golden file: the
/// hand-built traces, and the recorded log of every sample story (`Fixtures/`) with the
/// diagnoses the analyzer finds in it.
@Suite struct GoldenFileTests {
    struct Sample: Sendable, CustomStringConvertible {
        let name: String
        let trace: Trace
        let diagnoses: [Diagnosis]
        var description: String { name }
    }

    static let samples = [
        Sample(name: "map-chain", trace: SampleTraces.mapChain, diagnoses: []),
        Sample(name: "receive-on", trace: SampleTraces.receiveOnQueue, diagnoses: SampleTraces.receiveOnDiagnoses),
        Sample(name: "thousand-values", trace: SampleTraces.thousandValues, diagnoses: []),
    ] + SampleFixtures.samples

    @Test(arguments: samples) func sequenceSVG(_ sample: Sample) {
        Snapshot.assertMatches(SequenceSVGRenderer.render(sample.trace, diagnoses: sample.diagnoses), file: "\(sample.name).sequence.svg")
    }

    @Test(arguments: samples) func mermaid(_ sample: Sample) {
        Snapshot.assertMatches(MermaidSequenceRenderer.render(sample.trace, diagnoses: sample.diagnoses), file: "\(sample.name).sequence.mmd")
    }

    @Test(arguments: samples) func plantUML(_ sample: Sample) {
        Snapshot.assertMatches(PlantUMLSequenceRenderer.render(sample.trace, diagnoses: sample.diagnoses), file: "\(sample.name).sequence.puml")
    }
}

extension GoldenFileTests {
    /// The dark palette on its own, which is what a dark-mode viewer sees; rsvg-convert
    /// ignores `prefers-color-scheme`, so this file is how the dark colours get looked at.
    @Test func sequenceSVGInDarkColours() {
        let svg = SequenceSVGRenderer.render(
            SampleTraces.receiveOnQueue, diagnoses: SampleTraces.receiveOnDiagnoses, options: .init(appearance: .dark))
        #expect(!svg.contains("prefers-color-scheme"))
        Snapshot.assertMatches(svg, file: "receive-on.sequence.dark.svg")
    }
}

extension GoldenFileTests {
    @Test(arguments: samples) func marblesBySequence(_ sample: Sample) {
        Snapshot.assertMatches(MarbleSVGRenderer.render(sample.trace), file: "\(sample.name).marbles.svg")
    }

    @Test(arguments: samples) func marblesByTime(_ sample: Sample) {
        Snapshot.assertMatches(MarbleSVGRenderer.render(sample.trace, options: .init(axis: .time)), file: "\(sample.name).marbles-time.svg")
    }
}

extension GoldenFileTests {
    @Test(arguments: samples) func perfetto(_ sample: Sample) {
        Snapshot.assertMatches(PerfettoTraceRenderer.render(sample.trace), file: "\(sample.name).perfetto.json")
    }
}

extension GoldenFileTests {
    /// The ownership graph of each recorded story's fullest snapshot, the one the gallery draws.
    @Test(arguments: SampleFixtures.samples) func ownershipDOT(_ sample: Sample) throws {
        let snapshot = try #require(sample.trace.fullestSnapshot, "the fixture was recorded without ownership snapshots")
        Snapshot.assertMatches(OwnershipDOTRenderer.render(snapshot, in: sample.trace), file: "\(sample.name).graph.dot")
    }
}
