import Foundation
import LifelineLog
import LifelineSamples
import Testing

/// `lifeline samples`: the gallery holds every file for every story, and a second run gives
/// the same bytes for everything but the files that carry real timestamps.
@Suite struct SamplesCommandTests {
    static let filesPerStory = [
        "console.txt", "diagnoses.json", "diagnoses.txt", "marbles.svg", "marbles~dark.svg", "sequence.mmd",
        "sequence.puml", "sequence.svg", "sequence~dark.svg", "timeline.txt", "trace.jsonl", "trace.perfetto.json",
    ]
    /// The ownership graph of each story, recorded with snapshots.
    static let ownershipFiles = ["graph.dot", "graph.svg", "graph~dark.svg"]
    /// The files whose bytes change from run to run: the log and the Perfetto trace carry
    /// event times, the process id and thread ids. They are not committed.
    static let timestamped: Set<String> = ["trace.jsonl", "trace.perfetto.json"]

    /// Every file under `folder`, by path relative to it.
    private func files(under folder: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: folder.path))
        while let path = enumerator.nextObject() as? String {
            var isFolder: ObjCBool = false
            let url = folder.appendingPathComponent(path)
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                result[path] = try Data(contentsOf: url)
            }
        }
        return result
    }

    /// The stories whose sequence diagram is too wide for a page, cut into sections.
    static let sectionedStories: Set<String> = ["schedulers"]

    /// The stories made of more than one pipeline, and how many.
    static let pipelinesPerStory = [
        "sink-and-assign": 2, "additive-demand": 2, "schedulers": 4, "dropped-cancellable": 2, "retain-cycle": 2,
    ]

    @Test func twoRunsWriteTheSameGallery() throws {
        let first = try LifelineExecutable.temporaryFolder(), second = try LifelineExecutable.temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second)
        }
        for folder in [first, second] {
            let run = try LifelineExecutable.run(["samples", "--output", folder.path])
            #expect(run.status == 0, "lifeline samples failed: \(run.standardError)")
        }
        let firstFiles = try files(under: first), secondFiles = try files(under: second)
        var expected: Set<String> = ["README.md"]
        for story in SampleScenario.all {
            for file in Self.filesPerStory + Self.ownershipFiles {
                // A story whose sequence diagram is cut into sections has its Mermaid as
                // Markdown, a diagram per section.
                let name = file == "sequence.mmd" && Self.sectionedStories.contains(story.name) ? "sequence.md" : file
                expected.insert("\(story.name)/\(name)")
            }
            // A story of several pipelines also draws them one per picture, light and dark.
            let pipelines = Self.pipelinesPerStory[story.name, default: 1]
            if pipelines > 1 {
                expected.insert("\(story.name)/pipelines/index.md")
                for number in 1...pipelines {
                    expected.formUnion(["\(story.name)/pipelines/P\(number).svg", "\(story.name)/pipelines/P\(number)~dark.svg"])
                }
            }
        }
        #expect(Set(firstFiles.keys) == expected)
        #expect(Set(secondFiles.keys) == expected)
        for (path, bytes) in firstFiles.sorted(by: { $0.key < $1.key }) {
            guard !Self.timestamped.contains(URL(fileURLWithPath: path).lastPathComponent) else { continue }
            #expect(secondFiles[path] == bytes, "\(path) differs between two runs of lifeline samples:\n\(Self.difference(bytes, secondFiles[path]))")
        }
    }

    /// What differs between two versions of a text file, for a failure message: the lines only
    /// the first has (`-`) and the lines only the second has (`+`), a dozen at most, so that a
    /// failure in CI says what was drawn differently rather than only that it was.
    static func difference(_ first: Data, _ second: Data?) -> String {
        guard let second else { return "missing from the second run" }
        let firstLines = String(decoding: first, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let secondLines = String(decoding: second, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let changes = secondLines.difference(from: firstLines)
        let lines = changes.prefix(12).map { change in
            switch change {
            case .remove(let offset, let line, _): "- \(offset + 1): \(line.prefix(300))"
            case .insert(let offset, let line, _): "+ \(offset + 1): \(line.prefix(300))"
            }
        }
        return "\(first.count) and \(second.count) bytes\n" + lines.joined(separator: "\n")
            + (changes.count > 12 ? "\n… \(changes.count - 12) more changed lines" : "")
    }

    /// The ownership graph of a story is what its snapshots saw, not where malloc happened to
    /// put its objects: sink-and-assign recorded into folders whose paths differ in length
    /// (which moves what the recording allocates, as another temporary folder did in CI) writes
    /// the same files. Its second array took the first one's address in some runs and not in
    /// others, and a snapshot drew the first one, which only a dead subscription had held, in the
    /// runs where it did not.
    @Test func theGalleryDoesNotDependOnWhereMallocPutsTheStorysObjects() throws {
        let base = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: base) }
        var first: (folder: String, files: [String: Data])?
        for length in stride(from: 1, through: 22, by: 3) {
            let folder = base.appendingPathComponent(String(repeating: "g", count: length))
            let run = try LifelineExecutable.run(["samples", "--only", "sink-and-assign", "--output", folder.path])
            #expect(run.status == 0, "lifeline samples failed: \(run.standardError)")
            let files = try files(under: folder).filter { !Self.timestamped.contains(URL(fileURLWithPath: $0.key).lastPathComponent) }
            guard let first else {
                #expect(files.keys.contains("sink-and-assign/graph.dot"))
                first = (folder.lastPathComponent, files)
                continue
            }
            #expect(Set(files.keys) == Set(first.files.keys))
            for (path, bytes) in first.files.sorted(by: { $0.key < $1.key }) where files[path] != bytes {
                Issue.record("\(path) differs between the runs into \(first.folder) and \(folder.lastPathComponent):\n\(Self.difference(bytes, files[path]))")
            }
        }
    }

    /// output/ is committed as the gallery users see first: regenerating it must leave every
    /// committed file unchanged, so that `make demo` does not dirty a fresh clone. The logs and
    /// Perfetto traces, which differ on every run, are kept out of git (`.gitignore`).
    @Test func theCommittedGalleryIsUpToDate() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let committed = root.appendingPathComponent("output")
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try LifelineExecutable.run(["samples", "--output", folder.path])
        #expect(run.status == 0, "lifeline samples failed: \(run.standardError)")
        let isCommitted = { (path: String) in !Self.timestamped.contains(URL(fileURLWithPath: path).lastPathComponent) }
        let fresh = try files(under: folder).filter { isCommitted($0.key) }
        let kept = try files(under: committed).filter { isCommitted($0.key) }
        #expect(Set(kept.keys) == Set(fresh.keys), "output/ does not hold the files lifeline samples writes: run make demo")
        for (path, bytes) in fresh.sorted(by: { $0.key < $1.key }) {
            #expect(kept[path] == bytes, "output/\(path) is not what lifeline samples writes now: run make demo\n\(Self.difference(bytes, kept[path]))")
        }
        let ignored = try String(contentsOf: root.appendingPathComponent(".gitignore"), encoding: .utf8)
        for file in Self.timestamped.sorted() {
            #expect(ignored.contains("/output/*/\(file)"), "output/*/\(file) differs on every run and must not be committed")
        }
    }

    @Test func theGalleryPageShowsAStoryWithEveryFile() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try LifelineExecutable.run(["samples", "--output", folder.path, "--only", "forgotten-subscription"])
        #expect(run.status == 0, "lifeline samples failed: \(run.standardError)")
        let page = try String(contentsOf: folder.appendingPathComponent("README.md"), encoding: .utf8)
        let report = try String(contentsOf: folder.appendingPathComponent("forgotten-subscription/diagnoses.txt"), encoding: .utf8)
        let mermaid = try String(contentsOf: folder.appendingPathComponent("forgotten-subscription/sequence.mmd"), encoding: .utf8)
        #expect(page.contains("## \(SampleScenario.forgottenSubscription.title)"))
        #expect(page.contains("```\n" + report + "```"), "the diagnosis report is not on the page as written")
        #expect(page.contains("```mermaid\n" + mermaid + "```"), "the Mermaid diagram is not inline")
        for picture in ["sequence", "marbles"] {
            #expect(page.contains("""
                <picture>
                  <source media="(prefers-color-scheme: dark)" srcset="forgotten-subscription/\(picture)~dark.svg">
                  <img src="forgotten-subscription/\(picture).svg"
                """), "the \(picture) diagram is not shown as a light and dark pair")
        }
        for file in Self.filesPerStory where !Self.timestamped.contains(file) {
            #expect(page.contains("](forgotten-subscription/\(file))"), "no link to \(file)")
        }
        #expect(page.contains("](../Tests/LifelineRenderTests/Fixtures/forgotten-subscription.jsonl)"),
                "no link to a recorded log of the story")
        let light = try String(contentsOf: folder.appendingPathComponent("forgotten-subscription/sequence.svg"), encoding: .utf8)
        let dark = try String(contentsOf: folder.appendingPathComponent("forgotten-subscription/sequence~dark.svg"), encoding: .utf8)
        #expect(light.contains(".bg{fill:#ffffff}") && dark.contains(".bg{fill:#0d1117}"), "each copy has its palette baked in")
    }

    @Test func everyStoryHasARecordedFixture() {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("LifelineRenderTests/Fixtures")
        for story in SampleScenario.all {
            #expect(FileManager.default.fileExists(atPath: fixtures.appendingPathComponent("\(story.name).jsonl").path),
                    "no recorded trace of \(story.name) in Tests/LifelineRenderTests/Fixtures: the golden files do not cover it")
        }
    }

    @Test func theRetainCycleStoryShowsItsOwnershipGraph() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try LifelineExecutable.run(["samples", "--output", folder.path, "--only", "retain-cycle"])
        #expect(run.status == 0, "lifeline samples failed: \(run.standardError)")
        let page = try String(contentsOf: folder.appendingPathComponent("README.md"), encoding: .utf8)
        let dot = try String(contentsOf: folder.appendingPathComponent("retain-cycle/graph.dot"), encoding: .utf8)
        let svg = try String(contentsOf: folder.appendingPathComponent("retain-cycle/graph.svg"), encoding: .utf8)
        #expect(page.contains("### Ownership graph"))
        #expect(page.contains(#"<img src="retain-cycle/graph.svg""#))
        #expect(page.contains(#"srcset="retain-cycle/graph~dark.svg""#))
        let snapshot = try #require(try TraceReader.read(contentsOf: folder.appendingPathComponent("retain-cycle/trace.jsonl").path).fullestSnapshot)
        #expect(page.contains("Snapshot \(snapshot.index) \"\(snapshot.label)\", after event @\(snapshot.seq) "),
                "the caption names the snapshot drawn, and its event as events are named everywhere")
        #expect(snapshot.reason == .subscribe && snapshot.label.wholeMatch(of: /after subscribe @[0-9]+/) != nil,
                "an automatic snapshot's label names the call's last event with @: \(snapshot.label)")
        #expect(dot.contains("snapshot \(snapshot.index) "))
        #expect(dot.contains("receiveValue (closure)"))
        #expect(svg.hasPrefix("<?xml") || svg.hasPrefix("<svg"))
        #expect(svg.contains("ProfileViewModel"))
    }
}
