import Foundation
import LifelineLog
import Testing

/// A sample program that calls `Lifeline.recordingIfRequested`, run as a user runs it, with
/// `LIFELINE_TRACE` and `LIFELINE_OPTIONS` in its environment.
@Suite struct RecordingIfRequestedTests {
    /// Runs the built `retain-cycle` sample with `environment` added to this process's.
    func runSample(environment: [String: String]) throws -> (status: Int32, standardError: String) {
        let executable = LifelineExecutable.url.deletingLastPathComponent().appendingPathComponent("retain-cycle")
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "build the samples with swift build")
        let process = Process()
        process.executableURL = executable
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
    }

    @Test func theOptionsVariableChoosesHowToRecord() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("trace.jsonl").path
        let run = try runSample(environment: ["LIFELINE_TRACE": path, "LIFELINE_OPTIONS": "snapshots, values=12"])
        #expect(run.status == 0)
        #expect(run.standardError.isEmpty)
        let trace = try TraceReader.read(contentsOf: path)
        #expect(trace.header.valueDescriptionLimit == 12)
        #expect(trace.snapshots.count > 1)
        #expect(trace.snapshots.last?.reason == .stop)
        #expect(trace.snapshots.first?.reason == .subscribe)
    }

    @Test func withoutOptionsTheDefaultsRecordOneSnapshotAtStop() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("trace.jsonl").path
        let run = try runSample(environment: ["LIFELINE_TRACE": path, "LIFELINE_OPTIONS": ""])
        #expect(run.status == 0)
        let trace = try TraceReader.read(contentsOf: path)
        #expect(trace.header.valueDescriptionLimit == nil)
        #expect(trace.snapshots.map(\.reason) == [.stop])
    }

    @Test func unreadableOptionsAreReportedAndTheProgramRunsUnrecorded() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("trace.jsonl").path
        let run = try runSample(environment: ["LIFELINE_TRACE": path, "LIFELINE_OPTIONS": "snapshots,vales=80"])
        #expect(run.status == 0)
        #expect(run.standardError.hasPrefix("lifeline: not recording: LIFELINE_OPTIONS: invalid recording options: can't read \"vales=80\""))
        #expect(run.standardError.contains("values=N"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
