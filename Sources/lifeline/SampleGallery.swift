import ArgumentParser
import Foundation
import Lifeline
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
    }

    let folder: URL

    /// Runs `scenario` under recording and writes its folder.
    func record(_ scenario: SampleScenario) throws -> Entry {
        let directory = folder.appendingPathComponent(scenario.name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let tracePath = directory.appendingPathComponent("trace.jsonl").path
        let console = SampleConsole()
        do {
            try Lifeline.start(writingTo: tracePath, options: RecordingOptions(valueDescriptionLimit: 80))
        } catch {
            StandardError.write("error: \(error)")
            throw ExitCode(2)
        }
        scenario.run(console)
        Lifeline.stop()
        let trace = try TraceFile.read(tracePath)
        try write(console.lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("console.txt"))
        try write(TimelineRenderer(showsTimes: false).render(trace), to: directory.appendingPathComponent("timeline.txt"))
        return Entry(scenario: scenario, trace: trace, console: console.lines)
    }

    /// Writes the index page, README.md, that shows every story.
    func writeIndex(_ entries: [Entry]) throws {
        var page = """
            # Lifeline sample gallery

            Each story below was run by `lifeline samples` under recording. Its folder holds the \
            recorded log (`trace.jsonl`), what the program printed (`console.txt`) and the \
            timeline of every handshake call (`timeline.txt`). The stories' code is in \
            [samples/](../samples/).

            """
        for entry in entries {
            let name = entry.scenario.name
            page += """

                ## \(entry.scenario.title)

                \(entry.scenario.summary)

                Files: [timeline](\(name)/timeline.txt) · [console](\(name)/console.txt) · \
                [log](\(name)/trace.jsonl) · \(entry.trace.events.count) events, \(entry.trace.objects.count) objects

                The program printed:

                ```
                \(entry.console.joined(separator: "\n"))
                ```

                """
        }
        try write(page, to: folder.appendingPathComponent("README.md"))
    }

    private func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url, options: .atomic)
    }
}
