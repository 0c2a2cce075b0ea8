import AppMutations
import Foundation
import Lifeline
import LifelineLog
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

    /// The app's folder in Tests/Apps, where the line each slip's finding should name is marked
    /// `// seeded: <mutation>`: the slip's own line, or the line that subscribed its pipeline
    /// when the slip is an operator's (a finding on an operator is named by its pipeline).
    let folder: String
    let slips: [Slip]
    /// Records the app built with a mutation, run and torn down; the app quits once the
    /// recording has stopped, as the apps' executables do.
    let record: @Sendable (AppMutation) throws -> Trace

    /// The app `App`, whose sources are in Tests/Apps/`folder`, with `slips` seeded into it.
    init<App: SeedableApp>(_ app: App.Type, folder: String, slips: [Slip]) {
        self.folder = folder
        self.slips = slips
        record = { mutation in
            var running: App?
            let trace = try Lifeline.record {
                let app = App(mutation: mutation)
                #expect(app.run(), "the app's queues went quiet")
                app.tearDown()
                running = app
            }
            running?.quit()
            return trace
        }
    }

    var testDescription: String { folder }

    /// The file name and line (1-based) of the line marked for `mutation` in the app's source.
    func seededLine(of mutation: AppMutation) throws -> (file: String, line: Int) {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Apps/\(folder)").standardized
        let marker = "// seeded: \(mutation.rawValue)"
        var found: [(file: String, line: Int)] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where file.hasSuffix(".swift") {
            let lines = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                .components(separatedBy: "\n")
            for (index, line) in lines.enumerated() where line.hasSuffix(marker) || line.contains("\(marker),") {
                found.append((file, index + 1))
            }
        }
        #expect(found.count == 1, "\(folder) marks \(found.count) lines \(marker)")
        return try #require(found.first, "no line of \(folder) is marked \(marker)")
    }
}
