import LifelineAnalysis
import LifelineGraphviz
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
        #expect(model.lanes.map(\.oneLineName) == ["PassthroughSubject #1, Conduit #5", "operators: Publishers.Map", "Subscribers.Sink #3"])
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
        #expect(folds.map(\.summary) == ["× 6 values (@9–@30)"])
        let unfolded = SequenceModel(trace: script.trace, diagnoses: [], folding: false)
        #expect(unfolded.steps.count > model.steps.count)
    }

    /// A `retry` resubscribes inside the completion call of the first failure: its
    /// resubscriptions repeat one level down, inside one outer call, and fold there.
    @Test func repeatsInsideOneOuterCallFold() {
        var script = TraceScript()
        let sink = script.object(1, .subscriber, "Sink")
        let retry = script.object(2, .publisher, "Retry")
        let inner = script.object(3, .subscriber, "Retry.Inner")
        let empty = script.object(4, .subscription, "EmptySubscription")
        script.call(.subscribe(publisher: retry, subscriber: sink)) {
            $0.call(.completion(subscriber: inner, completion: .failure("Failure"))) {
                for attempt in 0..<30 {
                    let fail = $0.object(10 + UInt64(attempt), .publisher, "Fail")
                    $0.call(.subscribe(publisher: fail, subscriber: inner)) {
                        $0.call(.receiveSubscription(subscriber: inner, subscription: empty))
                        $0.call(.completion(subscriber: inner, completion: .failure("Failure")))
                    }
                }
            }
        }
        let folded = SequenceModel(trace: script.trace, diagnoses: [], folding: true, collapsing: true)
        let folds = folded.steps.compactMap { step -> RepeatedRun? in
            if case .fold(let run) = step.content { return run }
            return nil
        }
        #expect(folds.map(\.repeats) == [28], "the first and last of 30 resubscriptions are drawn")
        let unfolded = SequenceModel(trace: script.trace, diagnoses: [], folding: false, collapsing: true)
        #expect(unfolded.steps.count > 4 * folded.steps.count)
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

    /// The whole schedulers story, four pipelines that ran one after another, is too wide
    /// side by side even collapsed: it is cut into sections, one above the other, that each
    /// fit the page, keep every row in order, and head only the lanes they use.
    @Test func aStoryTooWideSideBySideIsCutIntoSectionsThatFit() throws {
        let sample = SelectionGoldenTests.schedulers
        let model = SequenceModel.fitted(sample.trace, diagnoses: sample.diagnoses, options: .init())
        #expect(SequenceSVGLayout.lanesWidth(of: model, packing: SequenceSVGLayout.tightestPacking) > 1_200)
        let sections = model.sections(fitting: 1_200)
        #expect(sections.count == 2)
        for section in sections {
            #expect(SequenceSVGLayout.lanesWidth(of: section, packing: SequenceSVGLayout.tightestPacking) <= 1_200)
            #expect(section.lanes.count < model.lanes.count)
            let used = Set(section.steps.flatMap(\.lanes))
            #expect(used == Set(section.lanes.indices), "a section heads exactly the lanes its rows use")
        }
        #expect(sections.flatMap(\.steps).map(\.seq) == model.steps.map(\.seq))
        let rowObjects = { (model: SequenceModel) in
            model.steps.map { step in step.lanes.map { model.lanes[$0].object.id } }
        }
        #expect(sections.flatMap(rowObjects) == rowObjects(model), "every row keeps its objects")

        let svg = SequenceSVGRenderer.render(sample.trace, diagnoses: sample.diagnoses)
        let size = try #require(PageFit.svgSize(Array(svg.utf8)))
        #expect(size.0 <= 1_200)
        #expect(OutputCheck.parseSVG(svg).filter { $0 == "Sink" }.count > model.lanes.filter { $0.typeLine == "Sink" }.count,
                "a lane in two sections is headed in each")
    }

    /// A log that opens with a mark, then a stretch too wide for the page that no cut can
    /// split (one subscribe through 30 operators): the mark joins that stretch's section
    /// instead of making a section with no lane, which the layout could not draw.
    @Test func aMarkBeforeAStretchTooWideJoinsItsSection() throws {
        var script = TraceScript()
        script.event(.instant, .mark(label: "browsing"))
        let subscriber = script.object(1, .subscriber, "Sink", label: "feed")
        let operators = (2...31).map { script.object(UInt64($0), .publisher, "Map\($0)", tracked: false) }
        func subscribeThrough(_ remaining: ArraySlice<TraceObjectID>, _ script: inout TraceScript) {
            guard let next = remaining.first else { return }
            script.call(.subscribe(publisher: next, subscriber: subscriber)) { subscribeThrough(remaining.dropFirst(), &$0) }
        }
        subscribeThrough(operators[...], &script)
        script.event(.instant, .mark(label: "later"))
        let options = SequenceDiagramOptions(collapse: .none)
        let model = SequenceModel.fitted(script.trace, diagnoses: [], options: options)
        #expect(model.sections(fitting: 1_200).allSatisfy { !$0.lanes.isEmpty })
        let svg = SequenceSVGRenderer.render(script.trace, diagnoses: [], options: options)
        #expect(svg.contains("browsing"))
    }

    /// A heading too narrow for its place keeps the line number and the id: `.swift` goes
    /// first, then the end of the file name.
    @Test func aShortenedHeadingKeepsTheLineNumber() {
        #expect(Lane.shortened("HomeScreenModel.swift:33", to: 24) == "HomeScreenModel.swift:33")
        #expect(Lane.shortened("HomeScreenModel.swift:33", to: 18) == "HomeScreenModel:33")
        #expect(Lane.shortened("HomeScreenModel.swift:33", to: 16) == "HomeScreenMo…:33")
        #expect(Lane.shortened("SampleScenario+Schedulers.swift:132", to: 20) == "SampleScenario+…:132")
        #expect(Lane.shortened("closure #1 in run()", to: 12) == "closure #1 …")
    }

    /// The schedulers story's ownership graph, too wide laid out left to right, is drawn the
    /// narrowest way it can be and then scaled to the page (1,200 px is 900 pt), with every
    /// reference's label: Graphviz's `packmode` stacked its unconnected parts too, but lost
    /// every label.
    @Test func theSchedulersGraphFitsThePage() throws {
        let sample = SelectionGoldenTests.schedulers
        let snapshot = try #require(sample.trace.fullestSnapshot)
        let wide = try GraphvizLayout().svg(fromDOT: OwnershipDOTRenderer.render(snapshot, in: sample.trace), theme: .light)
        #expect(try #require(PageFit.svgSize(Array(wide.utf8))).0 > 1_200)
        let picture = try PictureFormat.graphSVG.render(sample.trace, snapshot: snapshot, diagnoses: [], folding: true, axis: .sequence,
                                                       theme: .light, layout: GraphvizLayout())
        let width = try #require(PageFit.svgSize(picture)).0
        #expect(width <= 1_200)
        let labels = OwnershipDOTRenderer.graph(snapshot, in: sample.trace).edges.flatMap { edge in
            edge.attributes.compactMap { attribute -> String? in
                if case .label(let text) = attribute { return text }
                return nil
            }
        }
        #expect(labels.count == 9)
        let texts = OutputCheck.parseSVG(String(decoding: picture, as: UTF8.self))
        #expect(texts.filter(labels.contains).sorted() == labels.sorted())
    }

    /// An ownership graph wider than a page says so, as the other pictures do: Graphviz's
    /// points are converted to pixels, and a PNG's width is read from its header.
    @Test func aGraphWiderThanAPageSaysSo() {
        let trace = SampleTraces.mapChain
        let wide = Array(#"<svg width="1101pt" height="261pt""#.utf8)
        let warning = PageFit.tooWideWarning(format: .graphSVG, picture: wide, trace: trace, diagnoses: [], collapse: .auto)
        #expect(warning?.hasPrefix("the ownership graph is 1468 px wide") == true, "\(warning ?? "no warning")")
        let narrow = Array(#"<svg width="900pt" height="261pt""#.utf8)
        #expect(PageFit.tooWideWarning(format: .graphSVG, picture: narrow, trace: trace, diagnoses: [], collapse: .auto) == nil)
        let header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0x05, 0xBB, 0, 0, 1, 0]
        #expect(PageFit.pngWidth(header) == 1_467)
        #expect(PageFit.tooWideWarning(format: .graphPNG, picture: header, trace: trace, diagnoses: [], collapse: .auto) != nil)
    }

    /// A Mermaid diagram longer than Mermaid's default `maxTextSize` (50,000 UTF-16 code
    /// units), which GitHub and editors' previews refuse to draw, says so; one at the limit,
    /// and other formats, do not. Characters are counted as Mermaid counts them, not as bytes.
    @Test func aMermaidDiagramLongerThanMermaidDrawsSaysSo() {
        let sequence = Array("sequenceDiagram\n".utf8)
        func diagram(_ length: Int, filler: String = "a") -> [UInt8] {
            sequence + Array(String(repeating: filler, count: length - sequence.count).utf8)
        }
        let warning = PageFit.tooLongWarning(format: .mermaid, picture: diagram(50_001))
        #expect(warning?.hasPrefix("the Mermaid diagram is 50001 characters long") == true, "\(warning ?? "no warning")")
        #expect(warning?.contains("--split") == true)
        #expect(PageFit.tooLongWarning(format: .mermaid, picture: diagram(50_000)) == nil)
        #expect(PageFit.tooLongWarning(format: .plantuml, picture: diagram(60_000)) == nil)
        // 30,000 two-byte characters: 60,000 bytes, but 30,000 characters to Mermaid.
        #expect(PageFit.tooLongWarning(format: .mermaid, picture: diagram(30_000, filler: "é")) == nil)
        let split = PageFit.tooLongWarning(format: .mermaid, picture: diagram(50_001), name: "P3")
        #expect(split?.hasPrefix("the Mermaid diagram of P3 is") == true)
        #expect(split?.contains("--split") == false)
    }

    /// PlantUML and Mermaid are cut into the sections the SVG is, and say they are too wide
    /// only when a section is: the schedulers story's Mermaid, drawn side by side, was.
    @Test func theTextFormatsAreTooWideOnlyWhenASectionIs() {
        let sample = SelectionGoldenTests.schedulers
        func warning(_ format: PictureFormat) -> String? {
            let picture = Array(format == .plantuml
                ? PlantUMLSequenceRenderer.render(sample.trace, diagnoses: sample.diagnoses).utf8
                : MermaidSequenceRenderer.render(sample.trace, diagnoses: sample.diagnoses).utf8)
            return PageFit.tooWideWarning(format: format, picture: picture, trace: sample.trace, diagnoses: sample.diagnoses, collapse: .auto)
        }
        #expect(warning(.mermaid) == nil)
        #expect(warning(.plantuml) == nil)
        #expect(SequenceSVGRenderer.estimatedWidth(sample.trace, diagnoses: sample.diagnoses) > PageFit.pageWidth,
                "the story is too wide side by side")
    }

    /// A Mermaid picture cut into sections is Markdown, a diagram per section: written to a
    /// .mmd file, which Mermaid's tools read as one diagram, it is warned about; one diagram is not.
    @Test func mermaidSectionsInAMmdFileAreWarnedAbout() throws {
        let wide = SelectionGoldenTests.schedulers
        let sections = MermaidSequenceRenderer.render(wide.trace, diagnoses: wide.diagnoses)
        #expect(MermaidSequenceRenderer.diagrams(in: sections).count == 2)
        let warning = try #require(PageFit.markdownWarning(format: .mermaid, picture: Array(sections.utf8), fileName: "sequence.mmd"))
        #expect(warning.contains("cut into 2 sections"), "\(warning)")
        #expect(PageFit.markdownWarning(format: .mermaid, picture: Array(sections.utf8), fileName: "sequence.md") == nil)
        let one = MermaidSequenceRenderer.render(SampleTraces.mapChain)
        #expect(MermaidSequenceRenderer.diagrams(in: one) == [one[...]])
        #expect(PageFit.markdownWarning(format: .mermaid, picture: Array(one.utf8), fileName: "sequence.mmd") == nil)
    }

    /// A model that fits is not cut.
    @Test func aPictureThatFitsIsOneSection() {
        let model = SequenceModel(trace: SampleTraces.mapChain, diagnoses: [], folding: true)
        #expect(model.sections(fitting: 1_200).count == 1)
    }
}

extension PageFitTests {
    /// Six pipelines of one kind (a sink subscribed, sent a value, cancelled) and one of
    /// another kind: the first of the six is drawn, then `× 5 pipelines like this`.
    static var repeatedPipelines: Trace {
        var script = TraceScript()
        script.processName = "repeated"
        let subject = script.object(1, .publisher, "PassthroughSubject")
        var next: UInt64 = 2
        for round in 0..<7 {
            let sink = script.object(next, .subscriber, round == 6 ? "Subscribers.Assign" : "Subscribers.Sink")
            let conduit = script.object(next + 1, .subscription, "PassthroughSubject.Conduit")
            next += 2
            script.call(.subscribe(publisher: subject, subscriber: sink)) {
                $0.call(.receiveSubscription(subscriber: sink, subscription: conduit)) {
                    $0.call(.request(subscription: conduit, demand: .unlimited))
                }
            }
            script.call(.value(subscriber: sink, returnedDemand: nil, value: "\(round)"), returning: .none)
            script.call(.cancel(subscription: conduit))
        }
        return script.trace
    }

    @Test func repeatedPipelinesDrawOnceWithACount() {
        let svg = SequenceSVGRenderer.render(Self.repeatedPipelines)
        Snapshot.assertMatches(svg, file: "repeated.sequence.svg")
        #expect(OutputCheck.parseSVG(svg).contains("⋮ × 5 pipelines like this (@11–@60) ⋮"))
        let mermaid = MermaidSequenceRenderer.render(Self.repeatedPipelines)
        #expect(mermaid.contains("× 5 pipelines like this"))
        #expect(!SequenceSVGRenderer.render(Self.repeatedPipelines, options: .init(folding: false)).contains("like this"))
    }
}

extension PageFitTests {
    /// Pipelines each cancelled at once are alike findings included: one is drawn with its
    /// note, the rest fold into one row that names their finding.
    @Test func repeatedPipelinesWithTheSameFindingsFoldTogether() {
        var script = TraceScript()
        let subject = script.object(1, .publisher, "PassthroughSubject")
        for round in 0..<6 {
            let sink = script.object(UInt64(2 + 2 * round), .subscriber, "Subscribers.Sink")
            let conduit = script.object(UInt64(3 + 2 * round), .subscription, "PassthroughSubject.Conduit")
            script.call(.subscribe(publisher: subject, subscriber: sink)) {
                $0.call(.receiveSubscription(subscriber: sink, subscription: conduit)) {
                    $0.call(.request(subscription: conduit, demand: .unlimited))
                }
            }
            script.call(.cancel(subscription: conduit))
        }
        let trace = script.trace
        let findings = TraceAnalyzer().diagnose(trace)
        #expect(findings.count == 6 && findings.allSatisfy { $0.code == "cancelled-immediately" })
        let model = SequenceModel(trace: trace, diagnoses: findings, folding: true)
        #expect(model.notes.count == 1)
        let folds = model.steps.compactMap { step -> String? in
            if case .fold(let run) = step.content { return run.summary }
            return nil
        }
        #expect(folds == ["× 5 pipelines like this, each with cancelled-immediately (@9–@48)"])
    }
}
