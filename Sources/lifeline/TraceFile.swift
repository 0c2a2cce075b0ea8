import ArgumentParser
import LifelineLog

/// Reads a trace named on the command line. An unreadable or damaged log is reported on
/// standard error and ends the command with exit status 2.
enum TraceFile {
    static func read(_ path: String) throws -> Trace {
        do {
            let trace = try TraceReader.read(contentsOf: path)
            for damage in trace.damage { StandardError.write("warning: \(path): \(damage)") }
            return trace
        } catch {
            StandardError.write("error: \(path): \(error)")
            throw ExitCode(2)
        }
    }
}
