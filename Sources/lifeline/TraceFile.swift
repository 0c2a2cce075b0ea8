import ArgumentParser
import LifelineLog

/// Reads a trace named on the command line. An unreadable or damaged log is reported on
/// standard error and ends the command with exit status 2.
enum TraceFile {
    static func read(_ path: String) throws -> Trace {
        do throws(TraceReadError) {
            let trace = try TraceReader.read(contentsOf: path)
            for damage in trace.damage { StandardError.write("warning: \(path): \(damage)") }
            return trace
        } catch .unreadable(let path, let reason) {
            StandardError.write("error: cannot read \(path): \(reason)")
            throw ExitCode(2)
        } catch {
            StandardError.write("error: \(path): \(error)")
            throw ExitCode(2)
        }
    }
}
