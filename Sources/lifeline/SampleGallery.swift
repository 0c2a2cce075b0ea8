import ArgumentParser
import Foundation
import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineRender
import LifelineSamples

/// Writes the sample gallery: one folder per story and an index page.
struct SampleGallery {
    /// What one recorded story left in the gallery.
    struct Entry {
        let scenario: SampleScenario
        let trace: Trace
        let console: [String]
        let diagnoses: [Diagnosis]
        /// The diagnosis report, as diagnoses.txt holds it.
        let report: String
        /// The folded Mermaid sequence diagram, as sequence.mmd holds it.
        let mermaid: String
        /// The pipelines drawn one per picture in the story's pipelines/ folder; empty for a
        /// story of one pipeline.
        let pipelines: [Pipeline]
    }

    /// The pictures each story's folder holds, in the order the index links them.
    static let pictures: [RenderFormat] = [.svg, .mermaid, .plantuml, .marbles, .perfetto]

    /// The pictures of the fullest ownership snapshot (`Trace.fullestSnapshot`), for a story
    /// recorded with snapshots (all text formats, so that the gallery stays diffable).
    static let ownershipPictures: [RenderFormat] = [.dot, .graphSVG]

    let folder: URL

    /// Runs `scenario` under recording and writes its folder.
    func record(_ scenario: SampleScenario) throws -> Entry {
        let directory = folder.appendingPathComponent(scenario.name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let tracePath = directory.appendingPathComponent("trace.jsonl").path
        let console = SampleConsole()
        do {
            try Lifeline.start(writingTo: tracePath, options: RecordingOptions(
                valueDescriptionLimit: 80, automaticSnapshots: true
            ))
        } catch {
            StandardError.write("error: \(error)")
            throw ExitCode(2)
        }
        Lifeline.mark("story begins")
        scenario.run(console)
        Lifeline.mark("story ends")
        Lifeline.stop()
        let trace = try TraceFile.read(tracePath)
        // The story's run is the observed scope: a pipeline it started and left subscribed and
        // alive is a leak.
        let scope = ObservedScope(trace: trace, beginMark: "story begins", endMark: "story ends")
        let diagnoses = TraceAnalyzer(rules: TraceAnalyzer.standardRules + (scope.map { [LeakedSubscriptionRule(scope: $0)] } ?? []))
            .diagnose(trace)
        let report = TextDiagnosisReport(trace: trace, diagnoses: diagnoses).render()
        var files: [String: String] = [
            "console.txt": console.lines.joined(separator: "\n") + "\n",
            "timeline.txt": TimelineRenderer(showsTimes: false).render(trace),
            "diagnoses.txt": report,
            "diagnoses.json": JSONDiagnosisReport(trace: trace, diagnoses: diagnoses).render(),
        ]
        let pictures = Self.pictures + (trace.snapshots.isEmpty ? [] : Self.ownershipPictures)
        for format in pictures {
            do {
                let picture = try format.render(
                    trace, snapshot: trace.fullestSnapshot, diagnoses: diagnoses, folding: true, axis: .sequence
                )
                files[format.galleryFileName] = String(decoding: picture, as: UTF8.self)
            } catch {
                StandardError.write("error: \(scenario.name): could not draw the \(format.pictureName): \(error)")
                throw ExitCode(2)
            }
        }
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            try write(text, to: directory.appendingPathComponent(name))
        }
        let pipelines = TracePipelines(TraceLifecycles(trace)).pipelines.count > 1
            ? try SplitPictures.write(trace, diagnoses: diagnoses, format: .svg, into: directory.appendingPathComponent("pipelines"),
                                      warnings: false)
            : []
        return Entry(scenario: scenario, trace: trace, console: console.lines, diagnoses: diagnoses, report: report,
                     mermaid: files[RenderFormat.mermaid.galleryFileName]!, pipelines: pipelines)
    }

    /// Writes the index page, README.md, that shows every story: its diagnosis, its sequence
    /// and marble diagrams embedded, the Mermaid source inline, and links to every file.
    func writeIndex(_ entries: [Entry]) throws {
        var page = """
            # Lifeline sample gallery

            Each story below is a small Combine program from [samples/](../samples/), run by \
            `lifeline samples` under recording. For each one you see what Lifeline diagnosed, \
            the sequence diagram of every handshake call (diagnoses are the numbered notes, and \
            the events they cite carry the note's number beside their sequence number), the \
            marble diagram of every hop, and the same sequence diagram in Mermaid, which \
            GitHub draws inline.

            Every picture here can be drawn from any recorded log:

            ```sh
            lifeline render trace.jsonl --format svg -o sequence.svg     # or mermaid, plantuml, marbles, perfetto
            lifeline render trace.jsonl --format graph-svg -o graph.svg  # a log with ownership snapshots: or dot, graph-png
            ```

            Regenerate this page and every folder with `swift run lifeline samples`. Everything \
            but the logs (`trace.jsonl`, `trace.perfetto.json`, which carry real timestamps) comes \
            out byte for byte the same.

            "Lifeline finds" is what `lifeline samples` diagnosed in this recording, with the \
            story's run, between the marks "story begins" and "story ends", as the observed scope \
            for `leaked-subscription` (`lifeline diagnose trace.jsonl --scope "story begins" \
            "story ends"` gives the same). "Written to show" is what each story was written to \
            show; the tests check that the two agree.

            Every story is recorded with ownership snapshots and shows its ownership graph at the \
            moment the most objects were alive, named under the graph (draw any snapshot with \
            `lifeline render trace.jsonl --format graph-svg --at LABEL`): who holds whom, strong \
            references solid, weak ones dashed, retain cycles in red.

            | Story | Lifeline finds | Written to show |
            |---|---|---|

            """
        func codes(_ list: [String]) -> String {
            list.isEmpty ? "none" : Array(Set(list)).sorted().map { "`\($0)`" }.joined(separator: ", ")
        }
        for entry in entries {
            let title = "[\(Self.tableCell(entry.scenario.title))](#\(Self.anchor(entry.scenario.title)))"
            page += "| \(title) | \(codes(entry.diagnoses.map(\.code))) | \(codes(entry.scenario.expectedDiagnoses)) |\n"
        }
        for entry in entries {
            let name = entry.scenario.name
            page += """

                ## \(entry.scenario.title)

                \(entry.scenario.summary)

                Story: [samples/\(name)](../samples/\(name)/) · Files: \
                [sequence.svg](\(name)/sequence.svg) · [sequence.mmd](\(name)/sequence.mmd) · \
                [sequence.puml](\(name)/sequence.puml) · [marbles.svg](\(name)/marbles.svg) · \
                [trace.perfetto.json](\(name)/trace.perfetto.json) (open in ui.perfetto.dev) · \
                [diagnoses.txt](\(name)/diagnoses.txt) · [diagnoses.json](\(name)/diagnoses.json) · \
                [timeline.txt](\(name)/timeline.txt) · [console.txt](\(name)/console.txt) · \
                [trace.jsonl](\(name)/trace.jsonl) (\(entry.trace.events.count) events, \(entry.trace.objects.count) objects)

                ### Diagnosis

                ```
                \(entry.report)```

                ### Sequence diagram

                <img src="\(name)/sequence.svg" alt="Sequence diagram of the \(name) story">
                \(Self.pipelineLinks(entry))

                ### Marble diagram

                <img src="\(name)/marbles.svg" alt="Marble diagram of the \(name) story">
                \(ownershipSection(entry))
                ### Mermaid

                ```mermaid
                \(entry.mermaid)```

                ### What the program printed

                ```
                \(entry.console.joined(separator: "\n"))
                ```

                """
        }
        try write(page, to: folder.appendingPathComponent("README.md"))
    }

    /// The ownership graph of a story recorded with snapshots, or nothing.
    private func ownershipSection(_ entry: Entry) -> String {
        guard let snapshot = entry.trace.snapshots.last else { return "" }
        let name = entry.scenario.name
        return """

            ### Ownership graph

            Snapshot \(snapshot.index) "\(snapshot.label)", after event #\(snapshot.seq) \
            ([graph.dot](\(name)/graph.dot) · [graph.svg](\(name)/graph.svg)):

            <img src="\(name)/graph.svg" alt="Ownership graph of the \(name) story">

            """
    }

    /// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { character -> Character? in
            if character == " " { return "-" }
            if character == "-" || character == "_" || character.isLetter || character.isNumber { return character }
            return nil
        })
    }

    /// `text` safe inside a Markdown table cell.
    static func tableCell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }

    private func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url, options: .atomic)
    }

    /// The links to a multi-pipeline story's one-picture-per-pipeline diagrams, or nothing.
    private static func pipelineLinks(_ entry: Entry) -> String {
        guard !entry.pipelines.isEmpty else { return "" }
        let name = entry.scenario.name
        let links = entry.pipelines.map { "[\($0.id) \(tableCell($0.name))](\(name)/pipelines/\($0.id).svg)" }
        return "\nOne picture per pipeline (`lifeline render trace.jsonl --format svg --split -o pipelines`): "
            + links.joined(separator: " · ") + " · [index](\(name)/pipelines/index.md)\n"
    }
}
