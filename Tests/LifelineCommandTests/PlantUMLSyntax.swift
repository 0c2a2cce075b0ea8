import Foundation
import Testing

/// `plantuml -syntax`, the check PlantUML makes of a diagram's source without drawing it.
enum PlantUMLSyntax {
    /// What `plantuml -syntax` says of `source`: `SEQUENCE` and its participant count for a
    /// sequence diagram it accepts, `ERROR`, the line and the message otherwise.
    static func verdict(on source: String) throws -> String {
        let plantuml = try #require(
            ["/usr/bin/plantuml", "/usr/local/bin/plantuml"].first(where: FileManager.default.isExecutableFile),
            "plantuml is not installed: scripts/setup.sh installs it"
        )
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plantuml)
        process.arguments = ["-syntax"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(source.utf8))
        try input.fileHandleForWriting.close()
        let verdict = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return verdict
    }
}
