import AppMutations
import Foundation
import Testing

/// An app of Tests/Apps with the slips seeded into it, and what `lifeline diff` should report
/// for each against the app's unmutated run.
struct MutatedApp: Sendable, CustomTestStringConvertible {
    /// One slip seeded into the app.
    struct Slip: Sendable {
        let mutation: AppMutation
        /// The code of the one new finding; two when timing decides which of two true findings
        /// the slip gives. Empty for a slip Lifeline does not report, with ``unreportedBecause``.
        let codes: Set<String>
        /// Why Lifeline cannot report the slip, for a slip it is known to miss.
        let unreportedBecause: String?

        /// A slip reported as one new finding with one of `codes`.
        static func reported(_ mutation: AppMutation, as codes: Set<String>) -> Slip {
            Slip(mutation: mutation, codes: codes, unreportedBecause: nil)
        }

        /// A slip Lifeline is known not to report, and why.
        static func unreported(_ mutation: AppMutation, because reason: String) -> Slip {
            Slip(mutation: mutation, codes: [], unreportedBecause: reason)
        }
    }

    /// The app's folder in Tests/Apps, where each seeded line is marked `// seeded: <mutation>`.
    let folder: String
    let slips: [Slip]
    /// Builds the app with a mutation, runs it and tears it down.
    let run: @Sendable (AppMutation) -> Void

    var testDescription: String { folder }

    /// The file name and line (1-based) of the line marked as `mutation`'s in the app's source.
    func seededLine(of mutation: AppMutation) throws -> (file: String, line: Int) {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Apps/\(folder)").standardized
        let marker = "// seeded: \(mutation.rawValue)"
        var found: [(file: String, line: Int)] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where file.hasSuffix(".swift") {
            let lines = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                .components(separatedBy: "\n")
            for (index, line) in lines.enumerated() where line.hasSuffix(marker) {
                found.append((file, index + 1))
            }
        }
        #expect(found.count == 1, "\(folder) marks \(found.count) lines \(marker)")
        return try #require(found.first, "no line of \(folder) is marked \(marker)")
    }
}
