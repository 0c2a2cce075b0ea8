import Foundation
import Lifeline
import OpenCombineShim
import Testing

/// A feed screen's model the way apps write one: it keeps its sink, unless the mutation drops
/// the AnyCancellable `sink` returns.
final class FeedScreenModel {
    var cancellables = Set<AnyCancellable>()
    private(set) var shown: [Int] = []

    func show(_ feed: PassthroughSubject<Int, Never>, keepingTheSink: Bool) {
        let token = feed.sink { [weak self] in self?.shown.append($0) }
        if keepingTheSink { token.store(in: &cancellables) }
    }
}

/// `lifeline diff`, run as the built binary on two recordings of the same program: a run
/// against itself, a mutation, a fix.
@Suite("lifeline diff", .serialized)
struct DiffCommandTests {
    /// The log of a recording of the feed screen, as the recorder wrote it: it shows two
    /// values, then closes.
    func feedLog(keepingTheSink: Bool, named name: String) throws -> String {
        let path = try TraceLogFile.write(Data(), named: name)
        _ = try Lifeline.record(keepingLogAt: path) {
            let feed = PassthroughSubject<Int, Never>()
            let model = FeedScreenModel()
            model.show(feed, keepingTheSink: keepingTheSink)
            feed.send(1)
            feed.send(2)
            model.cancellables = []
        }
        return path
    }

    @Test func aChangedPipelineIsDrawnBeforeAndAfterSideBySide() throws {
        let base = try feedLog(keepingTheSink: true, named: "feed-kept.jsonl")
        let mutated = try feedLog(keepingTheSink: false, named: "feed-dropped.jsonl")
        let folder = (base as NSString).deletingLastPathComponent
        for theme in ["auto", "light", "dark"] {
            let picture = (folder as NSString).appendingPathComponent("feed-\(theme).svg")
            let diff = try LifelineExecutable.run(["diff", base, mutated, "--format", "svg", "--theme", theme, "-o", picture])
            #expect(diff.status == 1, "\(diff.standardError)")
            let svg = try String(contentsOfFile: picture, encoding: .utf8)
            // One document: the two diagrams nested, each headed, within the page's width.
            #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1200 "), "\(svg.prefix(200))")
            #expect(svg.components(separatedBy: "<svg ").count == 4, "the picture and its two diagrams")
            #expect(svg.contains(">before: feed-kept.jsonl (P1)</text>") && svg.contains(">after: feed-dropped.jsonl (P1)</text>"))
            // The finding the mutation added is a note on the after side only.
            let after = try #require(svg.components(separatedBy: ">after: ").last)
            #expect(!svg.components(separatedBy: ">after: ")[0].contains("cancelled-immediately"))
            #expect(after.contains("cancelled-immediately"), "\(after.prefix(2_000))")
            let xmllint = try #require(
                ["/usr/bin/xmllint", "/bin/xmllint"].first(where: FileManager.default.isExecutableFile),
                "xmllint is not installed: scripts/setup.sh installs it"
            )
            let process = Process()
            process.executableURL = URL(fileURLWithPath: xmllint)
            process.arguments = ["--noout", picture]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "xmllint rejects the SVG")
        }
        let unknown = try LifelineExecutable.run(["diff", base, mutated, "--format", "svg", "--pipeline", "Elsewhere.swift:1"])
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains("error: no changed pipeline is named Elsewhere.swift:1; the changed ones: DiffCommandTests.swift:"),
                "\(unknown.standardError)")
        let same = try LifelineExecutable.run(["diff", base, base, "--format", "svg"])
        #expect(same.status == 2)
        #expect(same.standardError.contains("no pipeline changed between"), "\(same.standardError)")
    }

    @Test func twoRunsOfTheSameProgramDoNotDiffer() throws {
        let first = try feedLog(keepingTheSink: true, named: "feed-1.jsonl")
        let second = try feedLog(keepingTheSink: true, named: "feed-2.jsonl")
        let diff = try LifelineExecutable.run(["diff", first, second])
        #expect(diff.status == 0, "\(diff.standardOutputText)")
        #expect(diff.standardOutputText == """
            Findings: 0 new, 0 resolved, 0 unchanged
            Pipelines: 1 in both (1 unchanged, 0 changed), 0 only in the base log, 0 only in the new log
            Alive at stop: no change

            """, "\(diff.standardOutputText)")
    }

    @Test func aDroppedSinkIsOneNewFindingAndItsPipelineLosesItsValues() throws {
        let base = try feedLog(keepingTheSink: true, named: "feed-kept.jsonl")
        let mutated = try feedLog(keepingTheSink: false, named: "feed-dropped.jsonl")
        let diff = try LifelineExecutable.run(["diff", base, mutated])
        #expect(diff.status == 1)
        let lines = diff.standardOutputText.split(separator: "\n").map(String.init)
        #expect(lines.first == "Findings: 1 new, 0 resolved, 0 unchanged", "\(diff.standardOutputText)")
        #expect(lines.count > 1 && lines[1].hasPrefix("  new       warning cancelled-immediately ("), "\(diff.standardOutputText)")
        let place = try #require(lines.first { $0.hasPrefix("  changed   DiffCommandTests.swift:") }, "\(diff.standardOutputText)")
        #expect(place.hasSuffix(": 2 → 0 values"), "\(place)")
        #expect(try LifelineExecutable.run(["diff", base, mutated, "--new-only"]).status == 1)

        let json = try LifelineExecutable.run(["diff", base, mutated, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
        #expect(document["format"] as? String == "lifeline-diff")
        let new = (document["findings"] as? [String: Any])?["new"] as? [[String: Any]]
        #expect(new?.map { $0["code"] as? String } == ["cancelled-immediately"])
    }

    @Test func aFixResolvesTheFindingAndSaysWhatBecameOfItsPipeline() throws {
        let broken = try feedLog(keepingTheSink: false, named: "feed-broken.jsonl")
        let fixed = try feedLog(keepingTheSink: true, named: "feed-fixed.jsonl")
        let diff = try LifelineExecutable.run(["diff", broken, fixed])
        #expect(diff.status == 1)
        let lines = diff.standardOutputText.split(separator: "\n").map(String.init)
        #expect(lines.first == "Findings: 0 new, 1 resolved, 0 unchanged", "\(diff.standardOutputText)")
        #expect(lines.count > 2 && lines[1].hasPrefix("  resolved  warning cancelled-immediately ("))
        #expect(lines[2].hasPrefix("            now: DiffCommandTests.swift:") && lines[2].contains(" cancelled, 2 values, 1 hop"),
                "\(diff.standardOutputText)")
        // Only new findings fail a run that asks for them alone.
        #expect(try LifelineExecutable.run(["diff", broken, fixed, "--new-only"]).status == 0)
    }

    @Test func aLogThatCannotBeReadExitsTwo() throws {
        let log = try feedLog(keepingTheSink: true, named: "feed-readable.jsonl")
        let diff = try LifelineExecutable.run(["diff", log, "/nonexistent/trace.lifeline"])
        #expect(diff.status == 2)
        #expect(diff.standardOutputText.isEmpty)
    }
}
