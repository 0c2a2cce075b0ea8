import Foundation
import Lifeline
import LifelineLog
import OpenCombineShim
import Testing

/// A log of thousands of short pipelines made at one call site draws the first one and a
/// `× N pipelines like this` row, not one lane group per pipeline.
@Suite("many pipelines", .serialized)
struct ManyPipelinesTests {
    static let count = 1_000

    @Test func repeatedPipelinesFoldIntoOneRow() throws {
        let subject = PassthroughSubject<Int, Never>()
        let trace = try Lifeline.record {
            for value in 0..<Self.count {
                let cancellable = subject.sink { _ in }
                subject.send(value)
                cancellable.cancel()
            }
        }
        let log = try TraceLogFile.write(trace, named: "many-pipelines.jsonl")
        let folder = URL(fileURLWithPath: log).deletingLastPathComponent()
        let output = folder.appendingPathComponent("many.svg")
        let run = try LifelineExecutable.run(["render", log, "--format", "svg", "-o", output.path])
        #expect(run.status == 0, "\(run.standardError)")
        let svg = try String(contentsOf: output, encoding: .utf8)
        #expect(svg.utf8.count < 100_000, "the SVG is \(svg.utf8.count) bytes")
        #expect(svg.contains("× \(Self.count - 1) pipelines like this"))
        let width = svg.firstRange(of: " width=\"").map { Int(svg[$0.upperBound...].prefix { $0.isNumber }) ?? 0 } ?? 0
        #expect(width > 0 && width <= 1_200)
        let xmllint = try #require(
            ["/usr/bin/xmllint", "/bin/xmllint"].first(where: FileManager.default.isExecutableFile),
            "xmllint is not installed: scripts/setup.sh installs it"
        )
        let process = Process()
        process.executableURL = URL(fileURLWithPath: xmllint)
        process.arguments = ["--noout", output.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "xmllint rejects the SVG")
    }
}
