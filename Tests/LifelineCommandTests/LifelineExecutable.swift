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

        /// Standard output decoded as UTF-8.
        var standardOutputText: String { String(decoding: standardOutput, as: UTF8.self) }
    }

    /// The executable was not built.
    struct MissingExecutable: Error, CustomStringConvertible {
        let path: String
        var description: String { "the lifeline executable is not at \(path); build it with swift build" }
    }

    /// Runs `lifeline` with `arguments` and waits for it to end.
    static func run(_ arguments: [String]) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw MissingExecutable(path: url.path) }
        let process = Process()
        process.executableURL = url
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
        try process.run()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, standardOutput: try Data(contentsOf: output),
                      standardError: String(decoding: try Data(contentsOf: error), as: UTF8.self))
    }

    /// A fresh, empty folder for one test's files.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
