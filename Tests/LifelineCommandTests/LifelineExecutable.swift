import Foundation

/// The built `lifeline` executable, run as a user or a CI job runs it.
enum LifelineExecutable {
    /// The executable beside the test bundle, in the build's products folder.
    static var url: URL {
        let products = Bundle.main.executableURL?.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return products.appendingPathComponent("lifeline")
    }

    /// What one run left behind.
    struct Result {
        let status: Int32
        let standardOutput: Data
        let standardError: String
        /// Whether the run was stopped for taking longer than its timeout.
        var timedOut = false

        /// Standard output decoded as UTF-8.
        var standardOutputText: String { String(decoding: standardOutput, as: UTF8.self) }
    }

    /// The executable was not built.
    struct MissingExecutable: Error, CustomStringConvertible {
        let path: String
        var description: String { "the lifeline executable is not at \(path); build it with swift build" }
    }

    /// Runs `lifeline` (or `executable`) with `arguments` and waits for it to end, or, with a
    /// `timeout` in seconds, until then at most: a run still going then is killed, and says so.
    static func run(_ arguments: [String], timeout: TimeInterval? = nil, executable: URL? = nil) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw MissingExecutable(path: url.path) }
        let process = Process()
        process.executableURL = executable ?? url
        process.arguments = arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-out-\(UUID().uuidString)")
        let error = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: error.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: error)
        }
        // Files rather than pipes: a run that prints a lot cannot fill a pipe and stall.
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: error)
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        var timedOut = false
        if let timeout, ended.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        return Result(status: process.terminationStatus, standardOutput: try Data(contentsOf: output),
                      standardError: String(decoding: try Data(contentsOf: error), as: UTF8.self), timedOut: timedOut)
    }

    /// A fresh, empty folder for one test's files.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
