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

    /// Creates findings.
    public init(trace: Trace, scope: ObservedScope, diagnoses: [Diagnosis]) {
        self.trace = trace
        self.scope = scope
        self.diagnoses = diagnoses
    }

    /// The diagnoses that fail a check: errors and warnings.
    public var problems: [Diagnosis] {
        diagnoses.filter { $0.severity >= .warning }
    }

    /// The message a failed check shows: what was found, grouped by subscription, with the
    /// events that prove it and the fix, as `lifeline diagnose` prints it.
    public var failureMessage: String {
        "The checked code left lifecycle problems:\n\n"
            + TextDiagnosisReport(trace: trace, diagnoses: problems).render()
    }
}
