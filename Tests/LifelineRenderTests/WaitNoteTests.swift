import Foundation
import LifelineLog
import Testing
@testable import LifelineRender

/// A sequence diagram of a log that ended without its end record shows what each stage of a
/// pipeline still open waits on, under an open bar, and under them all where the log ended, in
/// every format: the words the `waits-on` finding's chain gives, escaped as every label is. The
/// same log closed draws none of it.
@Suite struct WaitNoteTests {
    /// `first()` on a subject that was never sent a value, its stage labelled with text no
    /// format can carry as it is; `closed` says whether the log has its end record.
    static func silentSubject(closed: Bool) -> Trace {
        var script = TraceScript()
        script.closed = closed
        let subject = script.object(1, .publisher, "PassthroughSubject")
        let sink = script.object(2, .subscriber, "Sink")
        let conduit = script.object(3, .subscription, "PassthroughSubject.Conduit")
        let first = script.object(4, .publisher, "First")
        let inner = script.object(5, .subscriber, "First.Inner", label: SampleTraces.hostileText)
        script.subscribeThroughOperator(source: subject, operator: first, inner: inner, conduit: conduit, sink: sink)
        return script.trace
    }

    /// The visible words of an SVG's `<text>` elements, one per line drawn.
    static func texts(_ svg: String) -> [String] {
        OutputCheck.parseSVG(svg)
    }

    @Test(arguments: [true, false])
    func theSVGDrawsAnOpenBarAndTheWaitOfEachStage(folding: Bool) {
        for appearance in SVGAppearance.allCases {
            let options = SequenceDiagramOptions(folding: folding, collapse: .none, appearance: appearance)
            let svg = SequenceSVGRenderer.render(Self.silentSubject(closed: false), options: options)
            let texts = Self.texts(svg)
            // The sink's words name the stage it waits on, the stage's the subject, and the
            // subject's, in bold, say why it cannot move.
            // Wrapped between words to the room the page leaves.
            #expect(texts.joined(separator: " ").contains("waits on First.Inner \"quote\" back\\slash"), "\(texts)")
            #expect(texts.contains("waits on PassthroughSubject #1"), "\(texts)")
            #expect(svg.contains("class=\"tx tb hl\">nothing was sent to it</text>"))
            // Under the waits, the line where the log ended.
            #expect(texts.last { $0.hasPrefix("‖ ") || $0.contains("waits on") || $0.contains("nothing was sent") }
                == "‖ The log ends here, without its end record, while 1 pipeline was open.", "\(texts.suffix(6))")
            // An open bar on each of the three lanes, with its words as a tooltip.
            let bars = svg.matches(of: #/<path d="M(\d+),(\d+)V(\d+)H(\d+)V(\d+)" class="fd"><title>waiting: ([^<]*)</title></path>/#)
            #expect(bars.count == 3)
            #expect(bars.contains { $0.output.6 == "nothing was sent to it" })
            #expect(bars.contains { $0.output.6 == "waits on PassthroughSubject #1" })
            for bar in bars {
                // Open at its foot, below its top, one bar wide.
                #expect(Int(bar.output.2)! > Int(bar.output.3)! && bar.output.2 == bar.output.5)
                #expect(Int(bar.output.4)! - Int(bar.output.1)! == 10)
            }
        }
    }

    @Test func aClosedLogDrawsNoWait() {
        for render in [
            { SequenceSVGRenderer.render($0) }, { MermaidSequenceRenderer.render($0) }, { PlantUMLSequenceRenderer.render($0) },
        ] as [(Trace) -> String] {
            let closed = render(Self.silentSubject(closed: true)), open = render(Self.silentSubject(closed: false))
            #expect(!closed.contains("nothing was sent to it") && !closed.contains("waits on"))
            #expect(open.contains("nothing was sent to it"))
            // What is drawn above the waits is the same.
            #expect(closed.count < open.count)
        }
    }

    @Test func mermaidWritesANoteOverEachWaitingLaneAfterEveryOtherRow() {
        let source = MermaidSequenceRenderer.render(Self.silentSubject(closed: false), options: .init(collapse: .none))
        let lines = source.split(separator: "\n").map(String.init)
        for line in lines {
            #expect(line.wholeMatch(of: HostileLabelTests.mermaidStatement) != nil, "not one Mermaid statement: \(line.prefix(200))")
        }
        let waits = Array(lines.suffix(4).prefix(3))
        #expect(lines.last == "    Note over L0,L4: ‖ The log ends here, without its end record, while 1 pipeline was open.")
        #expect(waits.allSatisfy { $0.wholeMatch(of: #/    Note over L\d: ⋯ [^\n]+/#) != nil }, "\(waits)")
        #expect(waits[0].contains(": ⋯ waits on First.Inner #quot;quote#quot; back#92;slash #lt;tag#gt;"), "\(waits[0].prefix(200))")
        #expect(waits[1].hasSuffix(": ⋯ waits on PassthroughSubject #35;1") && waits[2].hasSuffix(": ⋯ nothing was sent to it"), "\(waits)")
        // With the entity codes taken out, nothing Mermaid reads as syntax is left.
        let bare = waits[0].dropFirst("    Note over L0: ".count).replacing(#/#\w+;/#, with: "")
        for forbidden in ["#", ";", "\"", "<", ">", "%", "\\"] {
            #expect(!bare.contains(forbidden), "unescaped \(forbidden) in \(waits[0].prefix(200))")
        }
    }

    @Test func plantUMLWritesANoteOverEachWaitingLaneThatPlantUMLAccepts() throws {
        let source = PlantUMLSequenceRenderer.render(Self.silentSubject(closed: false), options: .init(collapse: .none))
        let lines = source.split(separator: "\n").map(String.init)
        let waits = Array(lines.suffix(5).prefix(3))
        #expect(lines.last == "@enduml" && lines.filter { $0 == "@enduml" }.count == 1)
        #expect(lines.dropLast().last == "hnote over L0, L4 : ‖ The log ends here, without its end record, while 1 pipeline was open.")
        #expect(waits.allSatisfy { $0.wholeMatch(of: #/hnote over L\d : ⋯ [^\n]+/#) != nil }, "\(waits)")
        #expect(waits[0].contains(": ⋯ waits on First.Inner &#34;quote&#34; back<U+005C>slash &#60;tag&#62;"), "\(waits[0].prefix(200))")
        #expect(waits[1].hasSuffix(": ⋯ waits on PassthroughSubject &#35;1") && waits[2].hasSuffix(": ⋯ nothing was sent to it"), "\(waits)")
        try OutputCheck.checkPlantUML(source)
    }

    /// The scheduler story's log cut short while a `receive(subscription:)` it made never
    /// returned, with its other pipelines finished above: what a program killed while it hung
    /// there leaves.
    static func schedulersCutShort() throws -> Trace {
        let lines = try String(contentsOf: SampleFixtures.directory.appendingPathComponent("schedulers.jsonl"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let cut = FileManager.default.temporaryDirectory.appendingPathComponent("schedulers-cut-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: cut) }
        try lines.prefix(150).joined(separator: "\n").appending("\n").write(to: cut, atomically: true, encoding: .utf8)
        return try TraceReader.read(contentsOf: cut.path)
    }

    /// No wait's words are drawn over an activation or an open bar, those of a lane at the
    /// right edge of the page written leftwards included.
    @Test func noWaitsWordsCrossABar() throws {
        let trace = try Self.schedulersCutShort()
        #expect(trace.damage.contains(.notClosed))
        var leftwards = 0
        for pageWidth in [1_200, 1_000, 900, 800] {
            let svg = SequenceSVGRenderer.render(trace, options: .init(collapse: .none, pageWidth: pageWidth))
            func number(_ text: Substring) -> Int { Int(text)! }
            let lastArrow = svg.matches(of: #/<line x1="\d+" y1="(\d+)" x2="\d+" y2="\d+" class="s\d"/>/#).map { number($0.output.1) }.max() ?? 0
            let words = svg.matches(of: #/<text x="(\d+)" y="(\d+)" class="tx (tb )?hl"( text-anchor="end")?>([^<]+)</text>/#)
                .filter { number($0.output.2) > lastArrow && !$0.output.5.hasPrefix("‖") }
            // Each stage's words, wrapped to the room the page leaves.
            let said = words.map { String($0.output.5) }.joined(separator: " ")
            for stage in ["waits on ReceiveOn.Inner #27", "waits on SubscribeOn.Inner #32", "its receive(subscription:) at @86 never returned"] {
                #expect(said.contains(stage), "\(pageWidth): \(said)")
            }
            leftwards += words.filter { $0.output.4 != nil }.count
            var bars = svg.matches(of: #/<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)" class="a\d"/>/#).map { bar in
                (left: number(bar.output.1), top: number(bar.output.2), right: number(bar.output.1) + number(bar.output.3),
                 bottom: number(bar.output.2) + number(bar.output.4))
            }
            bars += svg.matches(of: #/<path d="M(\d+),(\d+)V(\d+)H(\d+)V\d+" class="fd">/#).map { bar in
                (left: number(bar.output.1), top: number(bar.output.3), right: number(bar.output.4), bottom: number(bar.output.2))
            }
            for word in words {
                let x = number(word.output.1), baseline = number(word.output.2)
                let width = DisplayText.estimatedWidth(of: String(word.output.5), fontSize: 12)
                let (left, right) = word.output.4 == nil ? (x, x + width) : (x - width, x)
                let crossed = bars.filter { $0.left < right && $0.right > left && $0.top < baseline + 3 && $0.bottom > baseline - 11 }
                #expect(crossed.isEmpty, "\(pageWidth): \(word.output.5) at \(left)…\(right), \(baseline) crosses \(crossed)")
            }
        }
        // Some page is narrow enough that a lane's words go leftwards.
        #expect(leftwards > 0)
    }
}
