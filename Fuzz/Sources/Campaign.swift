import Foundation

/// A fuzz campaign: runs the inputs in child processes, batch by batch, and keeps the inputs
/// that crashed or hung one.
struct Campaign {
    let mutator: LogMutator
    let seed: UInt64
    let executions: Int
    let batchSize: Int
    let maxSeconds: Double
    let batchTimeout: Double
    let crashFolder: URL
    let corpusArguments: [String]

    /// An input that ended its child process.
    struct Failure {
        let index: Int
        let kind: String
        let savedAt: String
        let detail: String
    }

    /// What a campaign did.
    struct Result {
        var executions = 0
        var rendered = 0
        var rejected = 0
        var failures: [Failure] = []
        var seconds = 0.0
        var stoppedEarly = false
        let seed: UInt64
        let corpusSize: Int

        var summary: String {
            var lines = [
                "lifeline-fuzz: seed \(seed), \(corpusSize) seed logs: \(executions) executions in "
                    + String(format: "%.1f", seconds) + " s (" + String(format: "%.0f", Double(executions) / max(seconds, 0.001))
                    + "/s); \(rendered) read and drawn in every format, \(rejected) refused by the reader; "
                    + "\(failures.count) crashes or hangs",
            ]
            if stoppedEarly { lines.append("lifeline-fuzz: stopped early at the time limit") }
            // The first ten in full: the rest are usually the same bug again.
            for failure in failures.prefix(10) {
                lines.append("lifeline-fuzz: input \(failure.index) \(failure.kind): saved at \(failure.savedAt); "
                    + "run it again with lifeline-fuzz --reproduce \(failure.savedAt)")
                if !failure.detail.isEmpty { lines.append(failure.detail) }
            }
            if failures.count > 10 { lines.append("lifeline-fuzz: … and \(failures.count - 10) more, saved beside them") }
            return lines.joined(separator: "\n")
        }
    }

    func run() throws -> Result {
        var result = Result(seed: seed, corpusSize: mutator.corpus.count)
        let start = ContinuousClock.now
        var next = 0
        while next < executions {
            if seconds(since: start) > maxSeconds {
                result.stoppedEarly = true
                break
            }
            let count = min(batchSize, executions - next)
            let batch = try runBatch(from: next, count: count)
            result.rendered += batch.rendered
            result.rejected += batch.rejected
            if let failure = batch.failure {
                result.executions += failure.index - next + 1
                result.failures.append(failure)
                next = failure.index + 1
            } else {
                result.executions += count
                next += count
            }
        }
        result.seconds = seconds(since: start)
        return result
    }

    private func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }

    /// Runs one child and reads what it said.
    private func runBatch(from first: Int, count: Int) throws -> (rendered: Int, rejected: Int, failure: Failure?) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: process.executableURL!.path) {
            process.executableURL = Bundle.main.executableURL
        }
        process.arguments = corpusArguments + [
            "--seed", "\(seed)", "--executions", "\(first + count)", "--batch-size", "\(count)", "--batch-first", "\(first)",
        ]
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-fuzz-\(UUID().uuidString).out")
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-fuzz-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: errors)
        }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let deadline = ContinuousClock.now + .milliseconds(Int(batchTimeout * 1_000))
        var hung = false
        while process.isRunning {
            if ContinuousClock.now > deadline {
                hung = true
                process.terminate()
                kill(process.processIdentifier, SIGKILL)
                break
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        process.waitUntilExit()
        let said = String(decoding: try Data(contentsOf: output), as: UTF8.self).split(separator: "\n")
        let rendered = said.count { $0.hasPrefix("rendered ") }, rejected = said.count { $0.hasPrefix("rejected ") }
        if said.last == "done", process.terminationStatus == 0, !hung {
            return (rendered, rejected, nil)
        }
        let started = said.last { $0.hasPrefix("start ") }.flatMap { Int($0.dropFirst("start ".count)) } ?? first
        let kind = hung
            ? "hung (no result after \(Int(batchTimeout)) s)"
            : process.terminationReason == .uncaughtSignal
                ? "crashed (signal \(process.terminationStatus))" : "ended with status \(process.terminationStatus)"
        let detail = String(decoding: try Data(contentsOf: errors), as: UTF8.self)
            .split(separator: "\n")
            .filter { $0.contains("Fatal error") || ($0.contains(" at /") && $0.contains("/Sources/") && !$0.contains("/Fuzz/")
                && !$0.contains("/checkouts/")) }
            .prefix(4)
            .joined(separator: "\n")
        return (rendered, rejected, Failure(index: started, kind: kind, savedAt: try save(started), detail: detail))
    }

    /// Writes input `index` to the crash folder and returns its path.
    private func save(_ index: Int) throws -> String {
        try FileManager.default.createDirectory(at: crashFolder, withIntermediateDirectories: true)
        var generator = SeededGenerator(seed: seed, index: index)
        let file = crashFolder.appendingPathComponent("crash-\(seed)-\(index).jsonl")
        try Data(mutator.input(index, using: &generator)).write(to: file)
        return file.path
    }
}
