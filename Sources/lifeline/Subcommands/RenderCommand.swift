import ArgumentParser
import Foundation
import LifelineAnalysis
import LifelineGraphviz
import LifelineLog
import LifelineRender

/// `lifeline render TRACE --format FORMAT`: draws a log as a picture, with its diagnoses, or
/// one of its ownership snapshots as a graph.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw a trace log as a sequence diagram, marble diagram, Perfetto trace or ownership graph.",
        discussion: """
            The sequence diagrams (svg, mermaid, plantuml) show what `lifeline diagnose` finds \
            as notes at the events that prove it. A sequence diagram too wide for a page is \
            cut into sections; mermaid then writes Markdown, one ```mermaid block per section. \
            The ownership graphs (dot, graph-svg, \
            graph-png) draw one snapshot of who holds whom: the last one, or the one --at \
            names; a log without snapshots is an error (exit 2). graph-png needs --output. The \
            output is deterministic: the same log gives the same bytes.
            """
    )

    @Argument(help: "The trace log to read (.lifeline, binary or JSON Lines).")
    var trace: String

    @Option(name: .shortAndLong, help: "What to draw.")
    var format: PictureFormat

    @Option(name: .shortAndLong, help: "The file to write (with --split, the folder). Default: standard output.")
    var output: String?

    @Flag(help: "Draw one picture per pipeline into the folder --output names, with an index.md that links them and their findings.")
    var split = false

    @Option(name: .customLong("at"), help: ArgumentHelp(
        "Ownership graphs: the snapshot to draw, by label or by event number, as in @153 (the last taken at or before that event). Default: the last snapshot.",
        valueName: "label|@seq"
    ))
    var snapshotReference: String?

    @Flag(help: "Draw every call: do not collapse long runs of identical calls into one row.")
    var noFold = false

    @Flag(help: "Marble diagrams: lay values out by elapsed time instead of by event order.")
    var time = false

    @Option(help: ArgumentHelp(
        "The colours of svg, marbles, graph-svg and graph-png: auto follows the viewer's light or dark mode (a media query inside the SVG, on a transparent background; PNG is light), light and dark bake one palette in, on an opaque background, for viewers that ignore media queries.",
        valueName: "auto|light|dark"
    ))
    var theme: PictureTheme = .auto

    @Option(help: ArgumentHelp(
        "Sequence diagrams: fold each pipeline's operators into one lane between its sources and its subscriber: always (operators), never (none), or only when the picture would not fit 1,200 px otherwise (auto).",
        valueName: "auto|operators|none"
    ))
    var collapse: SequenceDiagramOptions.Collapse = .auto

    @OptionGroup(title: "Choosing what to draw")
    var selection: PictureSelectionOptions

    func validate() throws {
        if time && format != .marbles {
            throw ValidationError("--time applies to the marble diagram only (--format marbles)")
        }
        if snapshotReference != nil && !format.drawsOwnershipGraph {
            throw ValidationError("--at applies to the ownership graphs only (--format dot, graph-svg or graph-png)")
        }
        if theme != .auto && !format.hasTheme {
            throw ValidationError("--theme applies to the pictures only (--format svg, marbles, graph-svg or graph-png)")
        }
        if collapse != .auto && !(format == .svg || format == .mermaid || format == .plantuml) {
            throw ValidationError("--collapse applies to the sequence diagrams only (--format svg, mermaid or plantuml)")
        }
        if split && output == nil {
            throw ValidationError("--split writes one file per pipeline: name the folder with --output")
        }
        if split && (!selection.pipelines.isEmpty || selection.finding != nil) {
            throw ValidationError("--split draws every pipeline: it does not combine with --pipeline or --finding")
        }
        if format == .graphPNG && output == nil {
            throw ValidationError("--format graph-png writes a binary PNG: name the file with --output")
        }
    }

    func run() throws {
        try CommandFailure.reporting { split ? try drawSplit() : try draw() }
    }

    private func draw() throws {
        if let output { try OutputFile.checkWritable(output, readingFrom: trace) }
        let whole = try ProgressIndicator.run("reading \(self.trace)") { try TraceFile.read(self.trace) }
        // Diagnosing and drawing the whole log share one rebuild of its lifecycles.
        let diagnosing = format.showsFindings || selection.finding != nil
        let lifecycles = diagnosing || (format == .marbles && !noFold) ? TraceLifecycles(whole) : nil
        let findings = diagnosing ? lifecycles.map { TraceAnalyzer().diagnose($0) } ?? [] : []
        let chosen = try selection.apply(to: whole, path: self.trace, diagnoses: findings, lifecycles: lifecycles)
        let trace = chosen.trace
        let snapshot = format.drawsOwnershipGraph
            ? try SnapshotChoice.snapshot(in: trace, from: self.trace, at: snapshotReference) : nil
        if let snapshot, format != .dot { try PageFit.checkGraphSize(snapshot) }
        let notes = format.showsFindings ? chosen.diagnoses : []
        if format == .perfetto {
            // Hundreds of megabytes for a million events: written as they are made, never held whole.
            try ProgressIndicator.run("writing the \(format.pictureName) of \(trace.events.count) events") {
                try OutputFile.write(to: output ?? "-") { emit in PerfettoTraceRenderer.render(trace, to: emit) }
            }
            return
        }
        let picture = try ProgressIndicator.run("drawing the \(format.pictureName) of \(trace.events.count) events") {
            do {
                return try format.render(trace, snapshot: snapshot, diagnoses: notes, folding: !noFold,
                                         axis: time ? .time : .sequence, theme: theme, collapse: collapse,
                                         findingNumbers: chosen.findingNumbers, layout: GraphvizLayout(),
                                         lifecycles: selection.selection.isEverything ? lifecycles : nil)
            } catch {
                StandardError.write("error: could not draw the \(format.pictureName): \(error)")
                throw ExitCode(2)
            }
        }
        if let warning = PageFit.tooWideWarning(format: format, picture: picture, trace: trace, diagnoses: notes, collapse: collapse) {
            StandardError.write("warning: \(warning)")
        }
        if let warning = PageFit.tooLongWarning(format: format, picture: picture) {
            StandardError.write("warning: \(warning)")
        }
        try PageFit.checkViewable(format: format, picture: picture)
        if let output {
            if let warning = PageFit.markdownWarning(format: format, picture: picture, fileName: output) {
                StandardError.write("warning: \(warning)")
            }
            try OutputFile.write(Data(picture), to: output)
        } else {
            // The bytes as they are: a picture of a million events is hundreds of megabytes, too
            // many to copy into a String first.
            try FileHandle.standardOutput.write(contentsOf: picture)
        }
    }

    /// `--split`: one picture per pipeline (of the events --between chooses) and the index.
    private func drawSplit() throws {
        guard let output else { return }
        // The folder may exist already (its pictures are replaced) or not yet (it is made).
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isFolder)
        try OutputFile.checkWritable(exists && isFolder.boolValue ? URL(fileURLWithPath: output).appendingPathComponent("index.md").path : output, readingFrom: trace)
        let whole = try ProgressIndicator.run("reading \(self.trace)") { try TraceFile.read(self.trace) }
        let lifecycles = TraceLifecycles(whole)
        let findings = TraceAnalyzer().diagnose(lifecycles)
        _ = try selection.apply(to: whole, path: self.trace, diagnoses: findings)
        try ProgressIndicator.run("drawing one \(format.pictureName) per pipeline") {
            do {
                try SplitPictures.write(whole, diagnoses: findings, format: format, into: URL(fileURLWithPath: output),
                                        between: selection.selection.between,
                                        folding: !noFold, axis: time ? .time : .sequence, theme: theme, collapse: collapse,
                                        layout: GraphvizLayout(), lifecycles: lifecycles) { StandardError.write("warning: \($0)") }
            } catch let error as ExitCode {
                throw error
            } catch let error as OutputFile.Failure {
                throw error
            } catch let error as PageFit.PictureTooLarge {
                throw error
            } catch {
                StandardError.write("error: could not draw the \(format.pictureName): \(error)")
                throw ExitCode(2)
            }
        }
    }
}
