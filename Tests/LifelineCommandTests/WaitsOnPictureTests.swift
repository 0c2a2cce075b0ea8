import Foundation
import Testing

/// The pictures and the pipeline list of a log a hung program left (Tests/HangingChild, killed
/// with SIGKILL): each stage of the pipeline still open is drawn with an open bar and what it
/// waits on, named by the child's file and line, as the `waits-on` finding's chain names it;
/// `lifeline pipelines` lists the pipeline as waiting on the stage where that chain ends. The
/// same program fixed, killed the same way, draws and lists no wait.
@Suite("waits-on in pictures and the pipeline list", .serialized)
struct WaitsOnPictureTests {
    /// What `lifeline ARGUMENTS…` writes for the log `hangingCase` leaves (`fixed` or hung),
    /// with object ids left out (`#_`) so that it reads the same whatever ids the log gave.
    func output(of hangingCase: String, fixed: Bool = false, _ arguments: [String]) throws -> String {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("\(hangingCase).lifeline").path
        try HangingChild.runAndKill(hangingCase, fixed: fixed, log: log)
        let run = try LifelineExecutable.run([arguments[0], log] + arguments.dropFirst())
        #expect(run.status == 0, "\(arguments): exit \(run.status)")
        // Ids as Mermaid (`#35;7`) and PlantUML (`&#35;7`) escape them too.
        return run.standardOutputText.replacing(/(&?#35;|#)[0-9]+/, with: "#_")
    }

    /// The open bars of an SVG sequence diagram, each as the words of its tooltip.
    func openBars(in svg: String) -> [String] {
        svg.matches(of: #/class="fd"><title>waiting: ([^<]*)</title></path>/#).map { String($0.output.1) }
    }

    @Test func theSVGShowsWhereEachStageStoppedAndWhatItWaitsOn() throws {
        let place = try HangingChild.place(of: ".lifeline(\"first answer\")")
        let svg = try output(of: "silent-subject", ["render", "--format", "svg", "--collapse", "none"])
        // The sink waits on first()'s stage, named by the line that made the pipeline; that stage
        // waits on the subject, which nothing was sent to: the stage that cannot move, in bold.
        // Rightmost lane first: the pipeline's end, then upstream.
        #expect(openBars(in: svg) == ["waits on First.Inner #_ (\(place))", "waits on PassthroughSubject #_", "nothing was sent to it"])
        // The words beside the sink's lane, wrapped to the room the page leaves on its right.
        let words = try Regex(#"class="tx hl">waits on First\.Inner #_( |</text>\s*<text [^>]*>)"#
            + NSRegularExpression.escapedPattern(for: "(\(place))") + "</text>")
        #expect(svg.contains(words))
        #expect(svg.contains("class=\"tx tb hl\">nothing was sent to it</text>"))
    }

    @Test func aCallThatNeverReturnedRunsDownToItsWords() throws {
        let svg = try output(of: "blocked-receive", ["render", "--format", "svg"])
        // The sink's receive(_:) is still running: its activation goes down to the words, with no
        // open bar of its own.
        #expect(openBars(in: svg).isEmpty, "\(openBars(in: svg))")
        #expect(svg.contains(#/class="tx tb hl">its receive\(_:\) at @\d+ never returned</text>/#))
    }

    @Test func mermaidAndPlantUMLWriteTheWaitsAsNotes() throws {
        let place = try HangingChild.place(of: ".lifeline(\"first answer\")")
        let mermaid = try output(of: "silent-subject", ["render", "--format", "mermaid", "--collapse", "none"])
        let mermaidNotes = mermaid.split(separator: "\n").suffix(4).prefix(3)
        #expect(mermaidNotes.allSatisfy { $0.wholeMatch(of: #/    Note over L\d+: ⋯ [^\n]+/#) != nil }, "\(mermaidNotes)")
        #expect(mermaidNotes.first?.hasSuffix(": ⋯ waits on First.Inner #_ (\(place))") == true, "\(mermaidNotes)")
        #expect(mermaidNotes.last?.hasSuffix(": ⋯ nothing was sent to it") == true, "\(mermaidNotes)")

        let plantUML = try output(of: "silent-subject", ["render", "--format", "plantuml", "--collapse", "none"])
        let plantUMLNotes = plantUML.split(separator: "\n").suffix(5).prefix(3)
        #expect(plantUMLNotes.first?.hasSuffix(" : ⋯ waits on First.Inner #_ (\(place))") == true, "\(plantUMLNotes)")
        #expect(plantUMLNotes.last?.hasSuffix(" : ⋯ nothing was sent to it") == true, "\(plantUMLNotes)")
        let said = try PlantUMLSyntax.verdict(on: plantUML)
        #expect(said.hasPrefix("SEQUENCE") && !said.contains("ERROR"), "plantuml -syntax rejects the diagram: \(said.prefix(500))")
    }

    @Test func thePipelineListSaysWhatTheHungPipelineWaitsOn() throws {
        let table = try output(of: "unkept-promise", ["pipelines"])
        let row = table.split(separator: "\n").first { $0.hasPrefix("P1 ") }
        #expect(row?.contains(" waiting on Future #_: its promise was never called ") == true, "\(row ?? "no P1")")

        let json = try output(of: "blocked-queue", ["pipelines", "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let pipeline = try #require((document["pipelines"] as? [[String: Any]])?.first)
        let place = try HangingChild.place(of: ".lifeline(\"display\")")
        #expect(pipeline["state"] as? String == "waiting")
        #expect(pipeline["waitsOn"] as? String
            == "ReceiveOn.Inner #_ (\(place)): holds 1 value and .finished for a scheduler that never ran")
    }

    @Test func theSplitPicturesIndexSaysWhatTheHungPipelineWaitsOn() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("silent-subject.lifeline").path
        try HangingChild.runAndKill("silent-subject", fixed: false, log: log)
        let pictures = folder.appendingPathComponent("pictures")
        let run = try LifelineExecutable.run(["render", log, "--format", "svg", "--split", "--output", pictures.path])
        #expect(run.status == 0)
        let index = try String(contentsOf: pictures.appendingPathComponent("index.md"), encoding: .utf8)
        let row = index.split(separator: "\n").first { $0.hasPrefix("| [P1]") }.map { $0.replacing(/#[0-9]+/, with: "#_") }
        #expect(row?.contains(" | waiting on PassthroughSubject #_: nothing was sent to it | ") == true, "\(row ?? "no P1")")
    }

    @Test(arguments: ["silent-subject", "blocked-receive"])
    func theSameProgramFixedDrawsAndListsNoWait(_ hangingCase: String) throws {
        let svg = try output(of: hangingCase, fixed: true, ["render", "--format", "svg"])
        #expect(openBars(in: svg).isEmpty && !svg.contains("waits on") && !svg.contains("never returned"))
        let json = try output(of: hangingCase, fixed: true, ["pipelines", "--format", "json"])
        #expect(!json.contains("waitsOn") && !json.contains("\"waiting\""))
    }
}
