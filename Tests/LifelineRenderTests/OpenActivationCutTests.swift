import LifelineLog
@testable import LifelineRender
import Testing

/// A picture too wide for the page is cut into sections even where a call is still running
/// on another thread: the call goes on in the section that draws its lane next, its
/// activation drawn from the top with a dashed end, and every text format opens it again.
@Suite struct OpenActivationCutTests {
    /// An upload worker busy with a photo on the upload thread for the whole recording, while
    /// the main thread subscribes twelve screens, each with its own subject, side by side: no
    /// moment is quiet on every thread, and the screens' lanes need several pages.
    private struct BusyWorker {
        let script: TraceScript
        let worker: TraceObjectID
        /// The delivery the worker is busy with, from its begin to its end.
        let delivery: UInt64, deliveryReturn: UInt64

        init() {
            var script = TraceScript()
            script.threads[2] = TraceThread(tid: 2, name: "upload")
            let library = script.object(100, .publisher, "LibraryScan")
            let scan = script.object(101, .subscription, "LibraryScan.Subscription")
            let worker = script.object(102, .subscriber, "UploadWorker", label: "worker")
            script.thread = 2
            script.call(.subscribe(publisher: library, subscriber: worker)) {
                $0.call(.receiveSubscription(subscriber: worker, subscription: scan)) {
                    $0.call(.request(subscription: scan, demand: .max(1)))
                }
            }
            script.event(.begin, .value(subscriber: worker, returnedDemand: nil, value: "photo 1"))
            let delivery = UInt64(script.events.count)
            script.thread = 1
            for screen in 0..<12 {
                let subject = script.object(UInt64(3 * screen + 1), .publisher, "PassthroughSubject")
                let conduit = script.object(UInt64(3 * screen + 2), .subscription, "PassthroughSubject.Conduit")
                let sink = script.object(UInt64(3 * screen + 3), .subscriber, "Sink", label: "screen \(screen)")
                script.call(.subscribe(publisher: subject, subscriber: sink)) {
                    $0.call(.receiveSubscription(subscriber: sink, subscription: conduit)) {
                        $0.call(.request(subscription: conduit, demand: .unlimited))
                    }
                }
                script.call(.value(subscriber: sink, returnedDemand: nil, value: "title \(screen)"), returning: TraceDemand.none)
            }
            script.thread = 2
            script.event(.end, .value(subscriber: worker, returnedDemand: .max(1), value: "photo 1"))
            (self.script, self.worker, self.delivery, deliveryReturn) = (script, worker, delivery, UInt64(script.events.count))
        }
    }

    private let options = SequenceDiagramOptions(folding: false, collapse: .none)

    @Test func aCallRunningOnAnotherThreadGoesOnInTheNextSectionThatDrawsItsLane() throws {
        let busy = BusyWorker()
        let model = SequenceModel(trace: busy.script.trace, diagnoses: [], folding: false)
        let sections = model.sections(fitting: 1_200)
        #expect(sections.count > 2)
        for (index, section) in sections.enumerated() {
            let width = SequenceSVGLayout.lanesWidth(of: section, packing: SequenceSVGLayout.tightestPacking)
            #expect(width <= 1_200, "section \(index + 1) is \(width) px wide")
            // A section draws only lanes on which something happens in it.
            let touched = Set(section.steps.flatMap(\.lanes))
            #expect(section.lanes.allSatisfy { touched.contains($0.index) }, "section \(index + 1) draws an idle lane")
        }
        #expect(sections.flatMap(\.steps).map(\.seq) == model.steps.map(\.seq), "every row in one section, in order")

        // The delivery begins in one section, which says it goes on below, and returns in a
        // later one, which opens it again on the worker's lane.
        let begins = try #require(sections.firstIndex { $0.steps.contains { $0.seq == busy.delivery } })
        let returns = try #require(sections.firstIndex { $0.steps.contains { $0.seq == busy.deliveryReturn } })
        #expect(begins < returns)
        #expect(sections[begins].continuesBelow)
        let carried = try #require(sections[returns].carriedActivations.first { $0.seq == busy.delivery })
        #expect(sections[returns].lanes[carried.lane].object.id == busy.worker)
        #expect(carried.caption == "@\(busy.delivery) receive(photo 1)")
        // The sections between, where the worker does nothing, leave its lane out.
        for section in sections[(begins + 1)..<returns] {
            #expect(!section.lanes.contains { $0.object.id == busy.worker })
        }
    }

    @Test func theSVGDrawsTheRunningCallFromTheTopOfItsSectionWithADashedEnd() throws {
        let busy = BusyWorker()
        let svg = SequenceSVGRenderer.render(busy.script.trace, options: options)
        let width = try #require(PageFit.svgSize(Array(svg.utf8))?.0)
        #expect(width <= 1_200)
        let texts = OutputCheck.parseSVG(svg)
        // Every event the picture numbers is numbered once.
        let numbers = texts.filter { $0.hasPrefix("@") }
        #expect(Set(numbers).count == numbers.count)
        #expect(numbers.contains("@\(busy.delivery)") && numbers.contains("@\(busy.deliveryReturn)"))
        // The continued activation is labelled with the call it continues, its dashed top says
        // so, and the one it continues has a dashed bottom.
        #expect(texts.contains("⋯ @\(busy.delivery)"))
        #expect(svg.contains("stroke-dasharray=\"2 2\" fill-opacity=\"0.5\"><title>continues @\(busy.delivery) receive(photo 1) from the section above</title>"))
        #expect(svg.contains("<title>goes on below</title>"))
    }

    @Test func mermaidAndPlantUMLOpenTheRunningCallAgainInTheirSection() throws {
        let busy = BusyWorker()
        let mermaid = MermaidSequenceRenderer.render(busy.script.trace, options: options)
        let model = SequenceModel(trace: busy.script.trace, diagnoses: [], folding: false)
        let sections = model.sections(fitting: 1_200)
        let diagrams = MermaidSequenceRenderer.diagrams(in: mermaid)
        #expect(diagrams.count == sections.count)
        // Mermaid refuses to close an activation it did not open: in every part, each
        // `deactivate` closes one that part opened.
        for (index, diagram) in diagrams.enumerated() {
            var open: [String: Int] = [:]
            for line in diagram.split(separator: "\n") {
                if line.hasPrefix("    activate ") { open[String(line.dropFirst(13)), default: 0] += 1 }
                if line.hasPrefix("    deactivate ") {
                    let lane = String(line.dropFirst(15))
                    #expect(open[lane, default: 0] > 0, "part \(index + 1) closes \(lane), which it did not open")
                    open[lane, default: 0] -= 1
                }
            }
        }
        #expect(mermaid.contains(": ⋯ continues @\(busy.delivery) receive(photo 1)\n    activate L"))
        #expect(mermaid.contains(": ⋯ goes on below\n    deactivate L"))

        let plantUML = PlantUMLSequenceRenderer.render(busy.script.trace, options: options)
        let plantUMLDiagrams = plantUML.components(separatedBy: "\n\n@startuml").count
        #expect(plantUMLDiagrams == sections.count)
        // PlantUML writes `@` as `&#64;`.
        let continues = "⋯ continues &#64;\(busy.delivery) receive(photo 1)"
        let continued = try #require(plantUML.components(separatedBy: "\n\n").first { $0.contains(continues) })
        #expect(continued.contains(continues + "\nactivate L"))
        try OutputCheck.checkPlantUML(continued)
    }
}
