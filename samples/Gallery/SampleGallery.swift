import Foundation
import Lifeline
import LifelineAnalysis
import LifelineGraphviz
import LifelineLog
import LifelineRender
import LifelineSamples

/// Writes the sample gallery: one folder per story and an index page. `lifeline samples`
/// (`make demo`) writes it into output/.
public struct SampleGallery {
    /// What one recorded story left in the gallery.
    public struct Entry {
        let scenario: SampleScenario
        let trace: Trace
        let console: [String]
        let diagnoses: [Diagnosis]
        /// The diagnosis report, as diagnoses.txt holds it.
        let report: String
        /// The folded Mermaid sequence diagram, as sequence.mmd holds it, or, cut into
        /// sections, the Markdown sequence.md holds.
        let mermaid: String

        /// The file that holds ``mermaid``.
        var mermaidFileName: String {
            MermaidSequenceRenderer.isMarkdown(mermaid) ? SampleGallery.mermaidMarkdownFileName : PictureFormat.mermaid.galleryFileName
        }

        /// ``mermaid`` as the page shows it: one diagram in a Mermaid block, or the sections'
        /// Markdown, which has a block per section, as it is.
        var inlineMermaid: String {
            MermaidSequenceRenderer.isMarkdown(mermaid) ? String(mermaid.dropLast()) : "```mermaid\n" + mermaid + "```"
        }
        /// The pipelines drawn one per picture in the story's pipelines/ folder; empty for a
        /// story of one pipeline.
        let pipelines: [Pipeline]
    }

    /// The pictures each story's folder holds, in the order the index links them.
    static let pictures: [PictureFormat] = [.svg, .mermaid, .plantuml, .marbles, .perfetto]

    /// The files that carry this run's clock times, process id and thread ids, so that every
    /// run writes different bytes. They are written, but kept out of git (`.gitignore`): the
    /// committed gallery links the recording of each story kept as a test fixture instead.
    static let runSpecificFiles: Set<String> = ["trace.jsonl", PictureFormat.perfetto.galleryFileName]

    /// The file that holds the Mermaid of a sequence diagram cut into sections, in place of
    /// sequence.mmd: Markdown with one diagram per section.
    static let mermaidMarkdownFileName = "sequence.md"

    /// Where the committed recording of a story is, relative to the gallery folder.
    static func fixturePath(of story: String) -> String {
        "../Tests/LifelineRenderTests/Fixtures/\(story).jsonl"
    }

    /// The name of the dark copy of a picture file: `sequence.svg` → `sequence~dark.svg`,
    /// which is how DocC pairs a dark image with its light one.
    static func darkFileName(of fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: ".") else { return fileName + "~dark" }
        return fileName[..<dot] + "~dark" + fileName[dot...]
    }

    /// The pictures of the fullest ownership snapshot (`Trace.fullestSnapshot`), for a story
    /// recorded with snapshots (all text formats, so that the gallery stays diffable).
    static let ownershipPictures: [PictureFormat] = [.dot, .graphSVG]

    /// A story that could not be recorded or drawn, in words.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    let folder: URL

    /// A gallery written into `folder`.
    public init(folder: URL) {
        self.folder = folder
    }

    /// Runs `scenario` under recording and writes its folder.
    ///
    /// - Throws: ``Failure`` when the story cannot be recorded or drawn, `OutputFile.Failure`
    ///   when a file cannot be written, and the reader's error for a log it cannot read.
    public func record(_ scenario: SampleScenario) throws -> Entry {
        let directory = folder.appendingPathComponent(scenario.name)
        try OutputFile.createFolder(directory.path)
        let tracePath = directory.appendingPathComponent("trace.jsonl").path
        let console = SampleConsole()
        do {
            // JSON Lines, so that a reader of the gallery can read the log itself.
            try Lifeline.start(writingTo: tracePath, options: RecordingOptions(
                valueDescriptionLimit: 80, snapshots: .everyCall, logFormat: .jsonLines
            ))
        } catch {
            throw Failure(description: "\(scenario.name): cannot record: \(error)")
        }
        Lifeline.mark("story begins")
        scenario.run(console)
        Lifeline.mark("story ends")
        Lifeline.stop()
        let trace = try TraceReader.read(contentsOf: tracePath)
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
            // Pictures come in a light and a dark copy, each with its palette baked in, for
            // GitHub's <picture> element and DocC's name~dark.svg pairs.
            let themes: [(PictureTheme, String)] = format.hasTheme
                ? [(.light, format.galleryFileName), (.dark, Self.darkFileName(of: format.galleryFileName))]
                : [(.auto, format.galleryFileName)]
            do {
                for (theme, fileName) in themes {
                    let picture = try format.render(
                        trace, snapshot: trace.fullestSnapshot, diagnoses: diagnoses, folding: true, axis: .sequence,
                        theme: theme, layout: GraphvizLayout()
                    )
                    files[fileName] = String(decoding: picture, as: UTF8.self)
                }
            } catch {
                throw Failure(description: "\(scenario.name): could not draw the \(format.pictureName): \(error)")
            }
        }
        // A sequence diagram cut into sections is Markdown, one Mermaid diagram per section:
        // a .md file, since Mermaid's tools read a .mmd file as one diagram.
        let mermaid = files[PictureFormat.mermaid.galleryFileName]!
        if MermaidSequenceRenderer.isMarkdown(mermaid) {
            files[PictureFormat.mermaid.galleryFileName] = nil
            files[Self.mermaidMarkdownFileName] = mermaid
        }
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            try write(text, to: directory.appendingPathComponent(name))
        }
        let pipelines = TracePipelines(TraceLifecycles(trace)).pipelines.count > 1
            ? try SplitPictures.write(trace, diagnoses: diagnoses, format: .svg, into: directory.appendingPathComponent("pipelines"),
                                      theme: .light, darkCopy: true, layout: GraphvizLayout())
            : []
        return Entry(scenario: scenario, trace: trace, console: console.lines, diagnoses: diagnoses, report: report,
                     mermaid: mermaid, pipelines: pipelines)
    }

    /// Writes the index page, README.md, that shows every story: its diagnosis, its sequence
    /// and marble diagrams embedded, the Mermaid source inline, and links to every file.
    public func writeIndex(_ entries: [Entry]) throws {
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
            lifeline render trace.jsonl --format svg --theme dark -o sequence~dark.svg  # or light; auto (the default) follows the viewer
            ```

            Every SVG comes in a light and a dark copy, each with its colours and background \
            baked in (`lifeline render --theme light|dark`), so that it reads the same in any \
            viewer: `sequence.svg` and `sequence~dark.svg` side by side is how DocC pairs them, \
            and this page shows the one that matches GitHub's theme with a `<picture>` element.

            Regenerate this page and every folder with `make demo` (`swift run lifeline samples \
            --output output`): everything comes out byte for byte the same, except each story's \
            log (`trace.jsonl`) and Perfetto trace (`trace.perfetto.json`), which carry the run's \
            clock times, process id and thread ids. Those two are written beside the pictures but \
            not committed; each story links instead the recording of it that the tests keep \
            (`Tests/LifelineRenderTests/Fixtures/`), a real log you can open, diagnose and draw.

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
                [sequence.svg](\(name)/sequence.svg) ([dark](\(name)/sequence~dark.svg)) · \
                [\(entry.mermaidFileName)](\(name)/\(entry.mermaidFileName)) · [sequence.puml](\(name)/sequence.puml) · \
                [marbles.svg](\(name)/marbles.svg) ([dark](\(name)/marbles~dark.svg)) · \
                [diagnoses.txt](\(name)/diagnoses.txt) · [diagnoses.json](\(name)/diagnoses.json) · \
                [timeline.txt](\(name)/timeline.txt) · [console.txt](\(name)/console.txt) · \
                a recorded log: [\(name).jsonl](\(Self.fixturePath(of: name))) (`make demo` writes \
                this run's `trace.jsonl`, \(entry.trace.events.count) events and \(entry.trace.objects.count) objects, \
                and `trace.perfetto.json` for ui.perfetto.dev beside it)

                ### Diagnosis

                ```
                \(entry.report)```

                ### Sequence diagram

                \(Self.picture("\(name)/sequence.svg", alt: "Sequence diagram of the \(name) story"))
                \(Self.pipelineLinks(entry))

                ### Marble diagram

                \(Self.picture("\(name)/marbles.svg", alt: "Marble diagram of the \(name) story"))
                \(ownershipSection(entry))
                ### Mermaid

                \(entry.inlineMermaid)

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
        guard let snapshot = entry.trace.fullestSnapshot else { return "" }
        let name = entry.scenario.name
        return """

            ### Ownership graph

            Snapshot \(snapshot.index) "\(snapshot.label)", after event @\(snapshot.seq) \
            ([graph.dot](\(name)/graph.dot) · [graph.svg](\(name)/graph.svg) · \
            [graph~dark.svg](\(name)/graph~dark.svg)):

            \(Self.picture("\(name)/graph.svg", alt: "Ownership graph of the \(name) story"))

            """
    }

    /// A `<picture>` that shows the dark copy of `path` when the page is dark, and the light
    /// one otherwise (and wherever `<picture>` is not understood).
    static func picture(_ path: String, alt: String) -> String {
        """
        <picture>
          <source media="(prefers-color-scheme: dark)" srcset="\(darkFileName(of: path))">
          <img src="\(path)" alt="\(alt)">
        </picture>
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
        try OutputFile.write(text, to: url.path)
    }

    /// The links to a multi-pipeline story's one-picture-per-pipeline diagrams, or nothing.
    private static func pipelineLinks(_ entry: Entry) -> String {
        guard !entry.pipelines.isEmpty else { return "" }
        let name = entry.scenario.name
        let links = entry.pipelines.map {
            "[\($0.id) \(tableCell($0.name))](\(name)/pipelines/\($0.id).svg) ([dark](\(name)/pipelines/\($0.id)~dark.svg))"
        }
        return "\nOne picture per pipeline (`lifeline render trace.jsonl --format svg --split -o pipelines`): "
            + links.joined(separator: " · ") + " · [index](\(name)/pipelines/index.md)\n"
    }
}
