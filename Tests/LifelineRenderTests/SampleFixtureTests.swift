import Foundation
import LifelineLog
import Testing
@testable import LifelineRender

/// The recorded logs of the sample stories: they read cleanly, and PlantUML accepts each
/// story's sequence diagram as the gallery writes it, notes included, folded and not.
@Suite struct SampleFixtureTests {
    @Test func everyFixtureReadsCleanly() throws {
        #expect(!SampleFixtures.names.isEmpty, "no recorded sample traces in \(SampleFixtures.directory.path)")
        for name in SampleFixtures.names {
            let trace = try TraceReader.read(contentsOf: SampleFixtures.directory.appendingPathComponent("\(name).jsonl").path)
            #expect(trace.damage.isEmpty, "\(name).jsonl is damaged: \(trace.damage)")
            #expect(!trace.events.isEmpty, "\(name).jsonl holds no events")
        }
        #expect(SampleFixtures.samples.count == SampleFixtures.names.count)
    }

    @Test(arguments: SampleFixtures.samples)
    func plantUMLAcceptsTheSampleDiagram(_ sample: GoldenFileTests.Sample) throws {
        try OutputCheck.checkPlantUML([true, false].map { folding in
            ("\(sample.name)\(folding ? "" : " unfolded")",
             PlantUMLSequenceRenderer.render(sample.trace, diagnoses: sample.diagnoses, options: .init(folding: folding)))
        })
    }

    @Test(arguments: SampleFixtures.samples)
    func theSampleSVGsParseAsXML(_ sample: GoldenFileTests.Sample) {
        for folding in [true, false] {
            OutputCheck.parseSVG(SequenceSVGRenderer.render(sample.trace, diagnoses: sample.diagnoses, options: .init(folding: folding)))
        }
        OutputCheck.parseSVG(MarbleSVGRenderer.render(sample.trace))
        OutputCheck.parseSVG(MarbleSVGRenderer.render(sample.trace, options: .init(axis: .time)))
    }
}
