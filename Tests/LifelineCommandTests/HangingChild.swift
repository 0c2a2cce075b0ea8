import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `lifeline-hanging-child` executable (Tests/HangingChild): a program that hangs in one of
/// issue 27's ways, or the same program fixed, run until it says it is ready and then killed
/// with SIGKILL, as a user kills a program that hangs.
enum HangingChild {
    /// The executable beside the test bundle, in the build's products folder.
    static var url: URL {
        LifelineExecutable.url.deletingLastPathComponent().appendingPathComponent("lifeline-hanging-child")
    }

    /// Every case the child can hang in.
    static let cases = [
        "never-requested", "silent-subject", "unkept-promise", "zip-one-side", "blocked-receive", "unfinished-inner",
        "blocked-queue", "ignored-demand",
    ]

    /// The child's source file that sets up the cases, whose lines the findings name.
    static let caseSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("HangingChild/HangingCase.swift")

    /// The executable was not built, or the child ended before it was ready.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs the child's `hangingCase` (`fixed` or hung), recording to `log`, kills it with SIGKILL
    /// as soon as it says "ready" (every event of the case is in the log by then), and waits
    /// for it to die. A child not ready within 30 s is killed all the same, and that fails.
    static func runAndKill(_ hangingCase: String, fixed: Bool, log: String) throws {
        try launch(hangingCase, fixed: fixed, log: log).killNow()
    }

    /// A child that said it is ready, still running.
    struct Running {
        let process: Process

        /// Sends it `signal`, unless it ended (its id may be another process's by then).
        func send(_ signal: Int32) {
            guard process.isRunning else { return }
            _ = kill(process.processIdentifier, signal)
        }

        /// Kills it with SIGKILL, as a user kills a program that hangs, and waits for it to die.
        func killNow() {
            send(SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Runs the child's `hangingCase` (`fixed` or hung; `idle` for a program with no pipeline),
    /// recording to `log` with the recording `options` (as `LIFELINE_OPTIONS` gives them), and
    /// returns once it says "ready". A child not ready within 30 s is killed, and that fails.
    static func launch(_ hangingCase: String, fixed: Bool, log: String, options: String? = nil) throws -> Running {
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw Failure(description: "the hanging child is not at \(url.path); build it with swift build --build-tests")
        }
        let process = Process()
        process.executableURL = url
        process.arguments = [hangingCase, fixed ? "fixed" : "hang", log] + (options.map { [$0] } ?? [])
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { _ = kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        defer { watchdog.cancel() }
        var said = Data()
        while !said.contains("ready\n".utf8) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said.append(chunk)
        }
        guard said.contains("ready\n".utf8) else {
            _ = kill(pid, SIGKILL)
            process.waitUntilExit()
            throw Failure(description: "the hanging child ended before it was ready (\(hangingCase), fixed: \(fixed))")
        }
        return Running(process: process)
    }

    /// `HangingCase.swift:N`, the line of the child's source that holds `text`: where a finding
    /// places the pipeline made there.
    static func place(of text: String) throws -> String {
        let lines = try String(contentsOf: caseSource, encoding: .utf8).components(separatedBy: "\n")
        guard let index = lines.firstIndex(where: { $0.contains(text) }) else {
            throw Failure(description: "HangingCase.swift has no line with \(text)")
        }
        return "HangingCase.swift:\(index + 1)"
    }
}
