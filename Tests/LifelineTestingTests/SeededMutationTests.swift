import AppMutations
import Lifeline
import LifelineAnalysis
import LifelineLog
import Testing

/// Issue 26's seeded mutations: each slip seeded into an app of Tests/Apps is reported by the
/// comparison `lifeline diff` makes as exactly one new finding against the unmutated run, and
/// the finding names the seeded line. Lines are found in the apps' source by their
/// `// seeded:` marks, never written here.
@Suite("Seeded mutations of the apps", .serialized)
struct SeededMutationTests {
    @Test(arguments: MutatedApp.all)
    func eachSlipIsExactlyOneNewFindingNamingItsLine(_ app: MutatedApp) throws {
        let base = TraceLifecycles(try app.record(.none))
        for slip in app.slips {
            let mutated = TraceLifecycles(try app.record(slip.mutation))
            let comparison = TraceComparison(base: base, new: mutated)
            if let reason = slip.unreportedBecause {
                withKnownIssue("\(slip.mutation.rawValue) is not reported: \(reason)") {
                    try expectOneNewFinding(comparison, of: slip, in: app)
                }
            } else {
                try expectOneNewFinding(comparison, of: slip, in: app)
            }
        }
    }

    private func expectOneNewFinding(_ comparison: TraceComparison, of slip: MutatedApp.Slip, in app: MutatedApp) throws {
        let summary = "\(app.folder), \(slip.mutation.rawValue): new \(comparison.newFindings.map(\.message)), "
            + "resolved \(comparison.resolvedFindings.map(\.message))"
        #expect(comparison.resolvedFindings.isEmpty, "\(summary)")
        #expect(comparison.newFindings.count == 1, "\(summary)")
        let finding = try #require(comparison.newFindings.first, "\(summary)")
        let (file, line) = try app.seededLine(of: slip.mutation)
        #expect(slip.codes.contains(finding.code), "\(summary)")
        #expect(finding.message.contains("\(file):\(line)"), "\(summary)")
    }
}
