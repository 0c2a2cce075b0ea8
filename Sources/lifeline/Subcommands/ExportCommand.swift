import ArgumentParser
import Foundation
import LifelineLog
import LifelineRender

/// `lifeline export TRACE [-o FILE]`: any log as the documented JSON Lines.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a trace log as JSON Lines, the documented interchange format.",
        discussion: """
            A log recorded with binary event records (the default, log format version 11) is \
            written as the log a JSON Lines recording (RecordingOptions(logFormat: .jsonLines)) \
            writes for the same events: the same lines in the same order, event times in \
            nanoseconds. A log of JSON lines is written line by line.

            A log damaged by a crash or a kill (a cut last line, torn records or lines, runs of \
            unwritten zero bytes, lost declarations) is exported as the reader reads it: the \
            damaged parts are left out, each damage is reported on standard error as a warning, \
            and the exit status is 0, so the output is always valid JSON Lines that reads back \
            with the same events. A log the reader refuses (not a Lifeline log, or damaged \
            beyond what a crash leaves) is not exported: an error, and exit status 2.
            """
    )

    @Argument(help: "The trace log to read (.lifeline, binary or JSON Lines).")
    var trace: String

    @Option(name: [.short, .long], help: "The file to write; standard output when omitted.")
    var output: String?

    func run() throws {
        try CommandFailure.reporting {
            if let output { try OutputFile.checkWritable(output, readingFrom: trace) }
            let exported: (trace: Trace, jsonLines: Data)
            do throws(TraceReadError) {
                exported = try TraceExporter.export(contentsOf: trace)
            } catch .unreadable(let path, let reason) {
                StandardError.write("error: cannot read \(path): \(reason)")
                throw ExitCode(2)
            } catch {
                StandardError.write("error: \(trace): \(error)")
                throw ExitCode(2)
            }
            for damage in exported.trace.damage { StandardError.write("warning: \(trace): \(damage)") }
            if let output {
                try OutputFile.write(exported.jsonLines, to: output)
            } else {
                try FileHandle.standardOutput.write(contentsOf: exported.jsonLines)
            }
        }
    }
}
