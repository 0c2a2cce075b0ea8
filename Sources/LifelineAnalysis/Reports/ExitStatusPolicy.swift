/// Decides whether a set of diagnoses fails a run: errors always do; with `strict`, warnings
/// do too. Info never fails.
///
/// ```swift
/// exit(ExitStatusPolicy(strict: options.strict).exitStatus(for: diagnoses))
/// ```
public struct ExitStatusPolicy: Hashable, Sendable {
    /// Whether warnings fail the run as well as errors.
    public let strict: Bool

    /// Creates a policy.
    public init(strict: Bool = false) {
        self.strict = strict
    }

    /// The lowest severity that fails a run.
    public var failingSeverity: Diagnosis.Severity { strict ? .warning : .error }

    /// Whether `diagnoses` fail the run.
    public func fails(_ diagnoses: [Diagnosis]) -> Bool {
        diagnoses.contains { $0.severity >= failingSeverity }
    }

    /// The process exit status for `diagnoses`: 1 when they fail the run, otherwise 0.
    public func exitStatus(for diagnoses: [Diagnosis]) -> Int32 {
        fails(diagnoses) ? 1 : 0
    }
}
