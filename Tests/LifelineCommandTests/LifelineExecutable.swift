import Foundation

/// The built `lifeline` binary, run the way a user or a CI job runs it.
///
/// SwiftPM puts executables in the same build products directory as the test bundle, so the
/// binary is found next to the running test executable.
struct LifelineExecutable {
    /// What one run left behind.
    struct Run {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    let url: URL

    /// The `lifeline` binary next to the running tests.
    init() throws {
        let products = Bundle.main.bundleURL.pathExtension == "xctest"
            ? Bundle.main.bundleURL.deletingLastPathComponent()
            : URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        url = products.appendingPathComponent("lifeline")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw MissingExecutable(path: url.path)
        }
    }

    /// Runs `lifeline` with `arguments` and waits for it to exit.
    ///
    /// Its output goes to files rather than pipes, so a long report can never fill a pipe
    /// and block it.
    func run(_ arguments: [String]) throws -> Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-run-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputURL = folder.appendingPathComponent("stdout"), errorURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL), error = try FileHandle(forWritingTo: errorURL)
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = error
        try process.run()
        process.waitUntilExit()
        try output.close()
        try error.close()
        return Run(
            status: process.terminationStatus,
            standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
            standardError: try String(contentsOf: errorURL, encoding: .utf8)
        )
    }

    struct MissingExecutable: Error, CustomStringConvertible {
        let path: String
        var description: String { "the lifeline executable is not at \(path); build it with swift build" }
    }
}
