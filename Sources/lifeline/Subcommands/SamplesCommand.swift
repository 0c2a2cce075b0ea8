import ArgumentParser
import Foundation
import LifelineGallery
import LifelineRender
import LifelineSamples

/// `lifeline samples`: the main job. Runs every sample story in-process under recording and
/// writes the gallery.
struct SamplesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples",
        abstract: "Run every sample story under recording and write the gallery.",
        discussion: """
            For each story, writes <output>/<story>/ with the recorded log (trace.jsonl), what \
            the story printed (console.txt), its timeline (timeline.txt), its diagnoses \
            (diagnoses.txt, diagnoses.json), its sequence diagram (sequence.svg, \
            sequence~dark.svg, sequence.mmd, sequence.puml), its marble diagram (marbles.svg, \
            marbles~dark.svg), a Perfetto trace (trace.perfetto.json) and, for a story recorded \
            with ownership snapshots, the ownership graph of its fullest snapshot (graph.dot, \
            graph.svg, graph~dark.svg), and the gallery page that shows them all \
            (<output>/README.md). Each SVG is drawn twice, light and dark, with the palette \
            baked in (name.svg and name~dark.svg, the pair DocC and the gallery's <picture> \
            elements use). Everything but trace.jsonl and trace.perfetto.json, which carry the \
            run's times, process id and thread ids, is deterministic: running again leaves \
            those files byte for byte the same.
            """
    )

    @Option(name: .shortAndLong, help: "The gallery folder.")
    var output = "output"

    @Option(name: .long, help: "Run only this story (repeatable). Default: all of them.")
    var only: [String] = []

    func validate() throws {
        let names = Set(SampleScenario.all.map(\.name))
        for name in only where !names.contains(name) {
            throw ValidationError("no sample story is named '\(name)'; the stories are: \(SampleScenario.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() throws {
        try CommandFailure.reporting(writeGallery)
    }

    private func writeGallery() throws {
        let scenarios = SampleScenario.all.filter { only.isEmpty || only.contains($0.name) }
        // Before recording anything: a gallery folder that cannot be made is said in words.
        try OutputFile.createFolder(output)
        let gallery = SampleGallery(folder: URL(fileURLWithPath: output))
        var entries: [SampleGallery.Entry] = []
        for scenario in scenarios {
            StandardError.write("recording \(scenario.name)…")
            entries.append(try gallery.record(scenario))
        }
        try gallery.writeIndex(entries)
        StandardError.write("wrote \(scenarios.count) samples to \(output)/")
    }
}
