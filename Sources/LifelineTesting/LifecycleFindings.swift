import LifelineAnalysis
import LifelineLog

/// What a ``LifecycleCheck`` found: the recorded trace of the checked block and every
/// diagnosis in it.
public struct LifecycleFindings: Sendable {
    /// The recording of the block.
    public let trace: Trace
    /// The stretch of the trace the block ran in.
    public let scope: ObservedScope
    /// Every diagnosis, info included, in ``TraceAnalyzer``'s order.
    public let diagnoses: [Diagnosis]
    /// The timeout the block ran past, or `nil` when it returned in time (or had none). The
    /// trace of a block that timed out is its log as it stood then, without its end record, and
    /// its ``diagnoses`` hold a `waits-on` finding for each pipeline still open.
    public let timedOut: Duration?

    /// Creates findings.
    public init(trace: Trace, scope: ObservedScope, diagnoses: [Diagnosis], timedOut: Duration? = nil) {
        self.trace = trace
        self.scope = scope
        self.diagnoses = diagnoses
        self.timedOut = timedOut
    }

    /// The diagnoses that fail a check: errors and warnings, and, when the block timed out, what
    /// each open pipeline waits on, info included.
    public var problems: [Diagnosis] {
        diagnoses.filter { $0.severity >= .warning || (timedOut != nil && $0.code == "waits-on") }
    }

    /// Whether the check fails: the block timed out, or left problems.
    public var failed: Bool {
        timedOut != nil || !problems.isEmpty
    }

    /// The message a failed check shows: what was found, grouped by subscription, with the
    /// events that prove it and the fix, as `lifeline diagnose` prints it; for a block that timed
    /// out, first that it did, then the waits-on chain of each pipeline still open; for a
    /// repeated scenario, what grew with its runs.
    public var failureMessage: String {
        let report = TextDiagnosisReport(trace: trace, diagnoses: problems).render()
        if timedOut == nil, !problems.isEmpty, problems.allSatisfy({ $0.code == "lifecycle-growth" }) {
            return "What the scenario left behind grew with its runs:\n\n" + report
        }
        guard let timedOut else { return "The checked code left lifecycle problems:\n\n" + report }
        return "The checked code did not return within \(timedOut); what it waits on:\n\n" + report
    }
}
