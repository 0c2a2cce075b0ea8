import LifelineAnalysis
import LifelineGraphviz
import LifelineLog
import LifelineRender
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

/// Each theme of one sequence diagram, one marble diagram and one ownership graph. rsvg-convert
/// ignores `prefers-color-scheme`, so the light and dark files are how each palette gets
/// looked at as PNG.
@Suite struct ThemeGoldenFileTests {
    /// The retain-cycle story: a note, a legend, a deallocation, and a graph with a cycle.
    static var retainCycle: GoldenFileTests.Sample {
        get throws {
            try #require(SampleFixtures.samples.first { $0.name == "retain-cycle" }, "the retain-cycle fixture is missing")
        }
    }

    /// The schedulers story: marbles on three threads, so three thread colours.
    static var schedulers: GoldenFileTests.Sample {
        get throws {
            try #require(SampleFixtures.samples.first { $0.name == "schedulers" }, "the schedulers fixture is missing")
        }
    }

    /// `name.svg` for the adaptive picture (the file the other golden tests check too),
    /// `name.light.svg` and `name.dark.svg` for the baked ones.
    static func file(_ name: String, _ theme: String) -> String {
        theme == "adaptive" ? "\(name).svg" : "\(name).\(theme).svg"
    }

    @Test(arguments: SVGAppearance.allCases) func sequenceSVG(_ appearance: SVGAppearance) throws {
        let sample = try Self.retainCycle
        let svg = SequenceSVGRenderer.render(sample.trace, diagnoses: sample.diagnoses, options: .init(appearance: appearance))
        Snapshot.assertMatches(svg, file: Self.file("retain-cycle.sequence", appearance.rawValue))
    }

    @Test(arguments: SVGAppearance.allCases) func marbles(_ appearance: SVGAppearance) throws {
        let svg = MarbleSVGRenderer.render(try Self.schedulers.trace, options: .init(appearance: appearance))
        Snapshot.assertMatches(svg, file: Self.file("schedulers.marbles", appearance.rawValue))
    }

    @Test(arguments: GraphvizAppearance.allCases.filter { $0 != .asAuthored })
    func ownershipGraph(_ appearance: GraphvizAppearance) throws {
        let sample = try Self.retainCycle
        let snapshot = try #require(sample.trace.fullestSnapshot)
        let dot = OwnershipDOTRenderer.render(snapshot, in: sample.trace)
        let svg = try GraphvizRenderer(appearance: appearance).svg(fromDOT: dot)
        Snapshot.assertMatches(svg, file: Self.file("retain-cycle.graph", appearance.rawValue))
    }

    /// A baked theme paints its page and carries no media query; the adaptive one is
    /// transparent and switches with the viewer.
    @Test(arguments: SVGAppearance.allCases) func bakedThemesPaintTheirBackground(_ appearance: SVGAppearance) throws {
        let sample = try Self.retainCycle
        for svg in [
            SequenceSVGRenderer.render(sample.trace, diagnoses: sample.diagnoses, options: .init(appearance: appearance)),
            MarbleSVGRenderer.render(sample.trace, options: .init(appearance: appearance)),
        ] {
            let lines = svg.split(separator: "\n").map(String.init)
            let background = lines.first { $0.hasPrefix("<rect") && $0.contains("class=\"bg\"") }
            switch appearance {
            case .adaptive:
                #expect(svg.contains("@media (prefers-color-scheme: dark)"))
                #expect(background == nil, "an adaptive picture takes the page's background")
                continue
            case .light:
                #expect(!svg.contains("prefers-color-scheme"))
                #expect(svg.contains(".bg{fill:#ffffff}"))
            case .dark:
                #expect(!svg.contains("prefers-color-scheme"))
                #expect(svg.contains(".bg{fill:#0d1117}"))
                #expect(svg.contains(".tx{fill:#e6edf3}"), "light text on the dark page")
            }
            let painted = try #require(background, "no background rectangle")
            let viewBox = try #require(svg.firstMatch(of: /viewBox="0 0 (\d+) (\d+)"/))
            #expect(painted.contains("width=\"\(viewBox.1)\" height=\"\(viewBox.2)\""), "the background covers the picture")
            let firstDrawing = lines.first { $0.hasPrefix("<rect") || $0.hasPrefix("<line") || $0.hasPrefix("<text") }
            #expect(firstDrawing == painted, "the background is drawn first, under everything")
        }
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
