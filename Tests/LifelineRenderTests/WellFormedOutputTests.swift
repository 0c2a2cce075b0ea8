import Foundation
import LifelineLog
import Testing
@testable import LifelineRender

/// Every format is valid for its consumer, for every sample, with and without folding.
@Suite struct WellFormedOutputTests {
    static let traces: [(String, Trace)] = GoldenFileTests.samples.map { ($0.name, $0.trace) } + [
        ("hostile", SampleTraces.hostile), ("empty", TraceScript().trace), ("damaged", SampleTraces.damaged),
        ("thread-hops", SampleTraces.threadHops(40)), ("repeated", PageFitTests.repeatedPipelines),
        ("repeated-inside-a-call", SampleTraces.repeatedInsideACall),
    ]

    @Test func everySVGParsesAsXML() {
        for (name, trace) in Self.traces {
            for folding in [true, false] {
                for appearance in SVGAppearance.allCases {
                    let texts = OutputCheck.parseSVG(SequenceSVGRenderer.render(trace, options: .init(folding: folding, appearance: appearance)))
                    #expect(!texts.isEmpty, "\(name): the sequence diagram shows no text")
                }
                for axis in MarbleDiagramOptions.Axis.allCases {
                    OutputCheck.parseSVG(MarbleSVGRenderer.render(trace, options: .init(axis: axis, folding: folding)))
                }
            }
        }
    }

    /// `plantuml -syntax` accepts, and PlantUML draws, every diagram of every trace, folded
    /// and not, with and without a hostile finding: a fold row is written where PlantUML
    /// allows one (not as a delay right before a call's activation ends).
    @Test
    func plantUMLAcceptsEveryDiagram() throws {
        var sources: [(name: String, source: String)] = []
        for (name, trace) in Self.traces {
            for folding in [true, false] {
                for diagnoses in [[], SampleTraces.hostileDiagnoses] {
                    let source = PlantUMLSequenceRenderer.render(trace, diagnoses: diagnoses, options: .init(folding: folding))
                    sources.append(("\(name)\(folding ? "" : " unfolded")\(diagnoses.isEmpty ? "" : " with a finding")", source))
                }
            }
        }
        sources.append(("receive-on", PlantUMLSequenceRenderer.render(SampleTraces.receiveOnQueue, diagnoses: SampleTraces.receiveOnDiagnoses)))
        #expect(sources.contains { $0.name == "repeated-inside-a-call" && $0.source.contains("× 5 pipelines like this") })
        try OutputCheck.checkPlantUML(sources)
    }

    @Test func perfettoOutputIsJSONWithBalancedSlicesAndPairedFlows() throws {
        for (name, trace) in Self.traces {
            let json = PerfettoTraceRenderer.render(trace)
            let root = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(name)")
            let events = try #require(root["traceEvents"] as? [[String: Any]])
            var depth: [Int: Int] = [:], asyncOpen: [Int: Int] = [:]
            var flowStarts = Set<Int>(), flowEnds = Set<Int>()
            for event in events {
                let tid = event["tid"] as? Int ?? -1
                switch event["ph"] as? String {
                case "B": depth[tid, default: 0] += 1
                case "E":
                    depth[tid, default: 0] -= 1
                    #expect(depth[tid]! >= 0, "\(name): an E event without its B on thread \(tid)")
                case "b": asyncOpen[event["id"] as! Int, default: 0] += 1
                case "e": asyncOpen[event["id"] as! Int, default: 0] -= 1
                case "s": flowStarts.insert(event["id"] as! Int)
                case "f": flowEnds.insert(event["id"] as! Int)
                default: break
                }
            }
            // A call still running when recording stopped stays open, which Perfetto shows
            // as "did not end"; every other slice ends.
            let stillRunning = name == "damaged" ? [1: 1] : [:]
            #expect(depth.filter { $0.value != 0 } == stillRunning, "\(name): slices left open")
            #expect(asyncOpen.values.allSatisfy { $0 == 0 }, "\(name): a subscription lifetime never ends")
            #expect(flowStarts == flowEnds, "\(name): a flow arrow lacks an end")
        }
    }
}
