/// A check that reads a trace's lifecycles and reports what it finds.
///
/// Each rule issues one code. Rules that need more than the log (a scope to check, an
/// ownership graph) take it when they are created, so that ``TraceAnalyzer`` can run any mix
/// of rules the same way:
///
/// ```swift
/// let analyzer = TraceAnalyzer(rules: TraceAnalyzer.standardRules + [LeakedSubscriptionRule(scope: scope)])
/// let diagnoses = analyzer.diagnose(trace)
/// ```
public protocol DiagnosisRule: Sendable {
    /// The stable kebab-case code of the diagnoses this rule issues.
    var code: String { get }

    /// The rule's findings in `lifecycles`, in any order.
    func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis]
}
