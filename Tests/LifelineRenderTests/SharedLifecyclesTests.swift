import Foundation
import LifelineAnalysis
import LifelineLog
import Testing
@testable import LifelineRender

/// A render given the lifecycles its caller rebuilt for the diagnoses draws the same bytes as
/// one that rebuilds them itself, and the shortcuts that spare a large log's render work
/// change no picture.
@Suite struct SharedLifecyclesTests {
    @Test(arguments: SampleFixtures.samples.map(\.name))
    func everyFormatDrawsTheSameWithTheDiagnosesLifecycles(_ name: String) throws {
        let sample = try #require(SampleFixtures.samples.first { $0.name == name })
        let lifecycles = TraceLifecycles(sample.trace)
        for format in [PictureFormat.svg, .mermaid, .plantuml, .marbles] {
            for collapse in [SequenceDiagramOptions.Collapse.auto, .operators, .none] where format != .marbles || collapse == .auto {
                func drawn(_ given: TraceLifecycles?) throws -> [UInt8] {
                    try format.render(sample.trace, diagnoses: sample.diagnoses, folding: true, axis: .sequence,
                                      collapse: collapse, layout: NoGraphLayout(), lifecycles: given)
                }
                #expect(try drawn(lifecycles) == drawn(nil), "\(name) as \(format) collapsing \(collapse)")
            }
        }
    }

    @Test(arguments: SampleFixtures.samples.map(\.name))
    func splitPicturesAreTheSameWithTheDiagnosesLifecycles(_ name: String) throws {
        let sample = try #require(SampleFixtures.samples.first { $0.name == name })
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-shared-\(getpid())-\(name)")
        defer { try? FileManager.default.removeItem(at: base) }
        func written(_ lifecycles: TraceLifecycles?, into folder: String) throws -> [String: Data] {
            let url = base.appendingPathComponent(folder)
            try SplitPictures.write(sample.trace, diagnoses: sample.diagnoses, format: .svg, into: url, layout: NoGraphLayout(),
                                    lifecycles: lifecycles)
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
            return try Dictionary(uniqueKeysWithValues: names.map { ($0, try Data(contentsOf: url.appendingPathComponent($0))) })
        }
        let shared = try written(TraceLifecycles(sample.trace), into: "shared")
        #expect(shared.keys.contains("index.md"))
        #expect(shared == (try written(nil, into: "own")))
    }

    /// The shortcut that collapses a picture without drawing it uncollapsed first holds only
    /// if no picture of that many lanes is narrower than it says.
    @Test func noPictureIsNarrowerThanItsNarrowestLanes() {
        let traces = SampleFixtures.samples.map(\.trace) + [SampleTraces.mapChain, SampleTraces.twoSubscribers, SampleTraces.threadHops(20)]
        for trace in traces {
            let model = SequenceModel(trace: trace, diagnoses: [], folding: true)
            let narrowest = SequenceSVGLayout.narrowestLanesWidth(laneCount: model.lanes.count)
            #expect(SequenceSVGLayout.lanesWidth(of: model, packing: SequenceSVGLayout.tightestPacking) >= narrowest)
            #expect(SequenceModel.uncollapsedLaneCount(of: trace, repeated: nil, diagnoses: []) == model.lanes.count)
        }
    }

    /// 20,000 short pipelines from one call site fold into one drawn pipeline and a row for
    /// the rest; a quadratic step in grouping them would not finish.
    @Test func twentyThousandShortPipelinesFoldIntoOne() {
        var script = TraceScript()
        let count = 20_000
        for index in 0..<count {
            let base = UInt64(3 * index + 1)
            let publisher = script.object(base, .publisher, "Just", tracked: false)
            let subscriber = script.object(base + 1, .subscriber, "Sink", label: "feed")
            let subscription = script.object(base + 2, .subscription, "Just.Inner", tracked: false)
            script.call(.subscribe(publisher: publisher, subscriber: subscriber)) {
                $0.call(.receiveSubscription(subscriber: subscriber, subscription: subscription)) {
                    $0.call(.request(subscription: subscription, demand: .unlimited)) {
                        $0.call(.value(subscriber: subscriber, returnedDemand: nil, value: nil))
                        $0.call(.completion(subscriber: subscriber, completion: .finished))
                    }
                }
            }
        }
        let trace = script.trace
        let model = SequenceModel(trace: trace, diagnoses: [], folding: true)
        #expect(model.lanes.count == 3)
        let folds = model.steps.compactMap { step -> RepeatedRun? in
            if case .fold(let run) = step.content { return run }
            return nil
        }
        #expect(folds.map(\.repeats) == [count - 1])
    }

    /// One subscriber re-subscribed 20,000 times inside the completion of its first failure,
    /// as `retry` does, each time with a new subscription, is drawn collapsed and folded
    /// rather than as 20,000 lanes.
    @Test func aSubscriberResubscribedTwentyThousandTimesIsDrawnCollapsedAndFolded() {
        var script = TraceScript()
        let count = 20_000
        let upstream = script.object(1, .publisher, "Fail", tracked: false)
        let retry = script.object(2, .subscriber, "Publishers.Retry.Inner")
        func attempt(_ index: Int, _ script: inout TraceScript, then body: (inout TraceScript) -> Void) {
            let subscription = script.object(UInt64(10 + index), .subscription, "Fail.Inner", tracked: false)
            script.call(.subscribe(publisher: upstream, subscriber: retry)) {
                $0.call(.receiveSubscription(subscriber: retry, subscription: subscription))
            }
            script.call(.completion(subscriber: retry, completion: .failure("boom")), body)
        }
        attempt(0, &script) { script in
            for index in 1..<count { attempt(index, &script) { _ in } }
        }
        let trace = script.trace
        let svg = SequenceSVGRenderer.render(trace)
        let size = PageFit.svgSize(Array(svg.utf8))
        #expect(size.map { $0.0 <= SequenceDiagramOptions.defaultPageWidth && $0.1 < 2_000 } == true, "\(String(describing: size))")
        #expect(svg.contains("× \(count - 3) repetitions"))
    }
}

/// Ownership graphs are not drawn here.
private struct NoGraphLayout: OwnershipGraphLayout {
    func svg(fromDOT dot: String, theme: PictureTheme) throws -> String { "" }
    func png(fromDOT dot: String, theme: PictureTheme) throws -> [UInt8] { [] }
}
