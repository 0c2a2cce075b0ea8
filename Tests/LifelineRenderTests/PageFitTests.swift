import LifelineAnalysis
import LifelineLog
import Testing
@testable import LifelineRender

/// Pictures fit a 1,200 px page: operators fold into one lane per pipeline, interleaved
/// repeats fold, notes wrap between words, and text is at least 11 px.
@Suite struct PageFitTests {
    @Test func collapsedOperatorsAreOneLaneBesideTheSubscriber() {
        let sample = SelectionGoldenTests.schedulers
        let options = SequenceDiagramOptions(collapse: .operators)
        let svg = SequenceSVGRenderer.render(sample.trace, diagnoses: sample.diagnoses, options: options)
        Snapshot.assertMatches(svg, file: "schedulers.collapsed.sequence.svg")
        Snapshot.assertMatches(MermaidSequenceRenderer.render(SampleTraces.mapChain, options: options),
                               file: "map-chain.collapsed.sequence.mmd")
        let model = SequenceModel(trace: SampleTraces.mapChain, diagnoses: [], folding: true, collapsing: true)
        #expect(model.lanes.map(\.oneLineName) == ["PassthroughSubject #1", "PassthroughSubject.Conduit #5", "operators: Publishers.Map", "Subscribers.Sink #3"])
        let texts = OutputCheck.parseSVG(svg)
        #expect(texts.contains("operators"))
    }

    @Test func noCollapseKeepsEveryObjectInItsOwnLane() {
        let model = SequenceModel(trace: SampleTraces.mapChain, diagnoses: [], folding: true, collapsing: false)
        #expect(model.lanes.count == 5)
    }

    /// A ticker's values interleaved with another pipeline's calls on other lanes fold; a
    /// unit on the same lanes between them breaks the run.
    @Test func interleavedRepeatsFold() {
        var script = TraceScript()
        let ticker = script.object(1, .subscriber, "Sink")
        let tickerConduit = script.object(2, .subscription, "Conduit")
        let other = script.object(3, .subscriber, "Sink")
        let otherConduit = script.object(4, .subscription, "Conduit")
        script.call(.receiveSubscription(subscriber: ticker, subscription: tickerConduit))
        script.call(.receiveSubscription(subscriber: other, subscription: otherConduit))
        for tick in 1...8 {
            script.call(.value(subscriber: ticker, returnedDemand: nil, value: "\(tick)"), returning: .none)
            script.call(.request(subscription: otherConduit, demand: .max(tick)))
        }
        let model = SequenceModel(trace: script.trace, diagnoses: [], folding: true)
        let folds = model.steps.compactMap { step -> RepeatedRun? in
            if case .fold(let run) = step.content { return run }
            return nil
        }
        #expect(folds.map(\.summary) == ["× 6 values (#9–#30)"])
        let unfolded = SequenceModel(trace: script.trace, diagnoses: [], folding: false)
        #expect(unfolded.steps.count > model.steps.count)
    }

    @Test func notesWrapBetweenWordsAndBreakLongTypesAtPunctuation() {
        let lines = SequenceSVGLayout.wrap(
            "UploadSubscription<OpenCombine.SubscriberTap<NewsReaderApp.AnalyticsSubscriber>> was deallocated while running",
            width: 30, maxLines: 6)
        #expect(lines == ["UploadSubscription<", "OpenCombine.SubscriberTap<", "NewsReaderApp.", "AnalyticsSubscriber>> was", "deallocated while running"])
        let cut = SequenceSVGLayout.wrap("one two three four five six seven eight", width: 12, maxLines: 2)
        #expect(cut == ["one two", "three four …"])
    }

    @Test func smallTextIsAtLeastElevenPixels() {
        let svg = SequenceSVGRenderer.render(SampleTraces.mapChain)
        #expect(!svg.contains("font-size:10px"))
        #expect(svg.contains("font-size:11px"))
    }

    @Test func aPipelineOfTheSchedulersStoryFitsThePage() throws {
        let sample = SelectionGoldenTests.schedulers
        for pipeline in ["P1", "P2", "P3", "P4"] {
            let chosen = try TraceSelection(pipelines: [pipeline]).apply(to: sample.trace, diagnoses: sample.diagnoses)
            let width = SequenceSVGRenderer.estimatedWidth(chosen.trace, diagnoses: chosen.diagnoses)
            #expect(width <= 1_200, "\(pipeline) is \(width) px wide")
        }
    }
}
