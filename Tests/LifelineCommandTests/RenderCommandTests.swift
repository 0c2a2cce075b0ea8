import Foundation
import LifelineLog
import Testing

/// `lifeline render`: every format from a recorded log, to standard output or a file, and a
/// clear error with exit status 2 for a log it cannot read or a file it cannot write.
@Suite struct RenderCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("LifelineRenderTests/Fixtures")
    static let trace = fixtures.appendingPathComponent("forgotten-subscription.jsonl").path
    static let formats = ["svg", "mermaid", "plantuml", "marbles", "perfetto"]

    @Test(arguments: formats) func standardOutputAndTheFileHoldTheSameBytes(_ format: String) throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("picture")
        let printed = try LifelineExecutable.run(["render", Self.trace, "--format", format])
        let written = try LifelineExecutable.run(["render", Self.trace, "--format", format, "-o", file.path])
        #expect(printed.status == 0 && written.status == 0, "\(printed.standardError)\(written.standardError)")
        #expect(!printed.standardOutput.isEmpty)
        #expect(written.standardOutput.isEmpty)
        #expect(try Data(contentsOf: file) == printed.standardOutput)
    }

    @Test func theSequenceDiagramShowsTheDiagnoses() throws {
        let run = try LifelineExecutable.run(["render", Self.trace, "--format", "mermaid"])
        let mermaid = String(decoding: run.standardOutput, as: UTF8.self)
        #expect(mermaid.contains("error: subscription-not-retained"))
        #expect(mermaid.contains("error: subscription-not-retained"))
    }

    /// A subject that sends 50 values to a sink, closed cleanly.
    private func fiftyValues() -> Data {
        var bytes = Data()
        let add = { (line: UnsafeRawBufferPointer) in bytes.append(contentsOf: line) }
        let subject = TraceObjectID(1), sink = TraceObjectID(2), conduit = TraceObjectID(3)
        TraceLineEncoder.withLine(for: TraceHeader(processID: 1, processName: "fifty", startedAt: "2026-11-23T08:00:00Z",
                                                   clockOrigin: 0, valueDescriptionLimit: 80), add)
        TraceLineEncoder.withLine(for: TraceObject(id: subject, role: .publisher, typeName: "PassthroughSubject",
                                                   shortTypeName: "PassthroughSubject", lifetimeTracked: true), add)
        TraceLineEncoder.withLine(for: TraceObject(id: sink, role: .subscriber, typeName: "Sink",
                                                   shortTypeName: "Sink", lifetimeTracked: true), add)
        TraceLineEncoder.withLine(for: TraceObject(id: conduit, role: .subscription, typeName: "Conduit",
                                                   shortTypeName: "Conduit", lifetimeTracked: true), add)
        TraceLineEncoder.withLine(for: TraceThread(tid: 1, name: "main"), add)
        var kinds: [(TraceEvent.Phase, TraceEvent.Kind)] = [
            (.begin, .subscribe(publisher: subject, subscriber: sink)),
            (.begin, .receiveSubscription(subscriber: sink, subscription: conduit)),
            (.begin, .request(subscription: conduit, demand: .unlimited)),
            (.end, .request(subscription: conduit, demand: .unlimited)),
            (.end, .receiveSubscription(subscriber: sink, subscription: conduit)),
            (.end, .subscribe(publisher: subject, subscriber: sink)),
        ]
        for value in 1...50 {
            kinds.append((.begin, .value(subscriber: sink, returnedDemand: nil, value: "\(value)")))
            kinds.append((.end, .value(subscriber: sink, returnedDemand: .max(0), value: "\(value)")))
        }
        for (index, (phase, kind)) in kinds.enumerated() {
            TraceLineEncoder.withLine(for: TraceEvent(seq: UInt64(index + 1), time: UInt64(index), thread: 1, queue: nil,
                                                      phase: phase, kind: kind), add)
        }
        TraceLineEncoder.withEndLine(events: UInt64(kinds.count), dropped: 0, add)
        return bytes
    }

    @Test func noFoldDrawsEveryCall() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("fifty.jsonl")
        try fiftyValues().write(to: trace)
        let folded = try LifelineExecutable.run(["render", trace.path, "--format", "mermaid"])
        let unfolded = try LifelineExecutable.run(["render", trace.path, "--format", "mermaid", "--no-fold"])
        #expect(folded.status == 0 && unfolded.status == 0, "\(folded.standardError)\(unfolded.standardError)")
        let foldedText = String(decoding: folded.standardOutput, as: UTF8.self)
        let unfoldedText = String(decoding: unfolded.standardOutput, as: UTF8.self)
        #expect(foldedText.contains("⋮ × 48 values"))
        #expect(!unfoldedText.contains("⋮"))
        #expect(unfoldedText.contains("receive(50)") && unfoldedText.contains("receive(25)"))
        #expect(!foldedText.contains("receive(25)"))
    }

    @Test func aMissingLogIsAnError() throws {
        let run = try LifelineExecutable.run(["render", "/nonexistent/trace.jsonl", "--format", "svg"])
        #expect(run.status == 2)
        #expect(run.standardError == "error: cannot read /nonexistent/trace.jsonl: no such file\n")
        #expect(run.standardOutput.isEmpty)
    }

    @Test func aFileThatIsNotALogIsAnError() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("notes.txt")
        try Data("shopping list\n".utf8).write(to: file)
        let run = try LifelineExecutable.run(["render", file.path, "--format", "svg"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("not a Lifeline log"))
        #expect(run.standardOutput.isEmpty)
    }

    @Test func anUnwritableOutputIsAnError() throws {
        let run = try LifelineExecutable.run(["render", Self.trace, "--format", "svg", "-o", "/nonexistent/folder/sequence.svg"])
        #expect(run.status == 2)
        #expect(run.standardError.hasPrefix("error: cannot write /nonexistent/folder/sequence.svg"))
    }

    @Test func timeIsForMarblesOnly() throws {
        let run = try LifelineExecutable.run(["render", Self.trace, "--format", "svg", "--time"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("--time applies to the marble diagram only"))
        let marbles = try LifelineExecutable.run(["render", Self.trace, "--format", "marbles", "--time"])
        #expect(marbles.status == 0)
    }
}
