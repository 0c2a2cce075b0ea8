import LifelineLog

/// One finding about a recorded pipeline: what went wrong, the events that prove it, and the
/// fix.
public struct Diagnosis: Hashable, Sendable {
    /// How much a finding matters.
    public enum Severity: String, Hashable, Sendable, Comparable, CaseIterable {
        case info, warning, error

        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// A stable kebab-case code, such as `subscriber-deallocated-early`.
    public let code: String
    /// How much it matters.
    public let severity: Severity
    /// The objects involved, most important first.
    public let objects: [TraceObjectID]
    /// The sequence numbers of the events that prove the finding, in order.
    public let evidence: [UInt64]
    /// One sentence on what happened.
    public let message: String
    /// What to change.
    public let fix: String
    /// The hop the finding is about, for grouping findings by subscription; `nil` when it
    /// concerns no single hop.
    public let hop: Hop?
    /// For an ownership finding, the chain of references that keeps the leak alive, each
    /// object with its verdict and each suspect reference marked.
    public let leakTrace: LeakTrace?
    /// A short hash that is the same in every run of the same bug and differs between bugs:
    /// made of the code, the suspect references of the ``leakTrace`` (holder types and fields),
    /// and the type, label and place in the program of each object, with no ids, addresses,
    /// times or counts. ``TraceAnalyzer`` sets it; it is empty on a diagnosis a rule returns
    /// directly.
    public internal(set) var fingerprint = ""

    /// Creates a diagnosis.
    public init(
        code: String, severity: Severity, objects: [TraceObjectID], evidence: [UInt64],
        message: String, fix: String, hop: Hop? = nil, leakTrace: LeakTrace? = nil
    ) {
        self.code = code
        self.severity = severity
        self.objects = objects
        self.evidence = evidence
        self.message = message
        self.fix = fix
        self.hop = hop
        self.leakTrace = leakTrace
    }
}
