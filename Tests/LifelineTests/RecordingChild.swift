import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `lifeline-recording-child` executable (Tests/RecordingChild), run as a separate process
/// so that a test can let it exit without stopping, or kill it.
struct RecordingChild {
    /// The executable beside the test bundle, in the build's products folder.
    static var url: URL {
        let products = Bundle.main.executableURL?.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return products.appendingPathComponent("lifeline-recording-child")
    }

    /// The executable was not built.
    struct MissingExecutable: Error, CustomStringConvertible {
        let path: String
        var description: String { "the recording child is not at \(path); build it with swift build --build-tests" }
    }

    /// What a finished run left behind.
    struct Result {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    let process: Process
    private let output: Pipe
    private let errorFile: URL

    /// Standard error so far.
    var standardError: String {
        (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
    }

    /// Starts the child with `arguments`, under an address-space limit (`ulimit -v`) if given.
    static func start(_ arguments: [String], addressSpaceLimitKiB: Int? = nil) throws -> RecordingChild {
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw MissingExecutable(path: url.path) }
        let process = Process()
        if let limit = addressSpaceLimitKiB {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -v \(limit) && exec \"$0\" \"$@\"", url.path] + arguments
        } else {
            process.executableURL = url
            process.arguments = arguments
        }
        let output = Pipe()
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("recording-child-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let error = try FileHandle(forWritingTo: errorFile)
        defer { try? error.close() }
        process.standardOutput = output
        process.standardError = error
        // The backtracer would take its time over the child's deliberate deaths.
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        try process.run()
        return RecordingChild(process: process, output: output, errorFile: errorFile)
    }

    /// Runs the child to its end.
    static func run(_ arguments: [String], addressSpaceLimitKiB: Int? = nil) throws -> Result {
        let child = try start(arguments, addressSpaceLimitKiB: addressSpaceLimitKiB)
        defer { try? FileManager.default.removeItem(at: child.errorFile) }
        let output = child.output.fileHandleForReading.readDataToEndOfFile()
        child.process.waitUntilExit()
        return Result(status: child.process.terminationStatus, standardOutput: String(decoding: output, as: UTF8.self),
                      standardError: child.standardError)
    }

    /// Reads the child's report lines until `isTheMoment` says so, kills the child with
    /// SIGKILL at once, and returns the last round it reported recorded ("recorded N"), or 0.
    /// A child that has not reached the moment within 30 s is killed all the same.
    func killed(when isTheMoment: (String) -> Bool) throws -> Int {
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { _ = kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        defer { watchdog.cancel() }
        let reading = output.fileHandleForReading
        var pending = Data()
        var lastRound = 0
        func take(_ line: String) {
            if line.hasPrefix("recorded "), let round = Int(line.dropFirst(9)) { lastRound = round }
        }
        reading: while true {
            let chunk = reading.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                take(line)
                if isTheMoment(line) {
                    _ = kill(pid, SIGKILL)
                    break reading
                }
            }
        }
        process.waitUntilExit()
        // What the child reported between the moment and the kill.
        pending.append(reading.readDataToEndOfFile())
        String(decoding: pending, as: UTF8.self).split(separator: "\n").forEach { take(String($0)) }
        return lastRound
    }

    /// A fresh, empty folder for one test's files.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
