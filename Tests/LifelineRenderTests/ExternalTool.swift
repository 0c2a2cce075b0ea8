import Foundation

/// A command-line checker the tests run: `plantuml`, `xmllint`. `scripts/setup.sh` installs
/// them, so one that is missing fails the test that needs it rather than skipping its check.
struct ExternalTool: Sendable {
    let name: String

    static let plantUML = ExternalTool(name: "plantuml")
    static let xmllint = ExternalTool(name: "xmllint")

    /// The tool's full path, found on `PATH`.
    var path: String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs the tool with `arguments`, feeding `input` on standard input.
    /// - Returns: The exit status and everything it printed (standard output, then error).
    func run(_ arguments: [String], input: String) throws -> (status: Int32, output: String) {
        guard let path else { throw NotInstalled(name: name) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Write and read on separate threads so that a full pipe cannot deadlock the test.
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let errorData = ReadResult()
        let errorReader = Thread {
            errorData.value = stderr.fileHandleForReading.readDataToEndOfFile()
            errorData.done.signal()
        }
        errorReader.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errorData.done.wait()
        return (process.terminationStatus, String(decoding: output + errorData.value, as: UTF8.self))
    }
}

/// Standard error, read on its own thread and handed over once `done` is signalled.
private final class ReadResult: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var value = Data()
}

/// A checker the tests need is not on `PATH`.
struct NotInstalled: Error, CustomStringConvertible {
    let name: String
    var description: String { "\(name) is not installed: scripts/setup.sh installs it" }
}
