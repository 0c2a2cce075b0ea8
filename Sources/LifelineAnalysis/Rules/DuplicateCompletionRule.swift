/// Finds subscribers that received more than one completion in one subscription.
public struct DuplicateCompletionRule: DiagnosisRule {
    public let code = "duplicate-completion"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        lifecycles.lifecycles.compactMap { lifecycle in
            guard lifecycle.completions.count > 1 else { return nil }
            let first = lifecycle.completions[0], second = lifecycle.completions[1]
            let source = lifecycle.subscription.map { " from \(lifecycles.name($0))" } ?? ""
            return Diagnosis(
                code: code, severity: .error,
                objects: [lifecycle.subscriber] + [lifecycle.subscription, lifecycle.publisher].compactMap { $0 },
                evidence: [first.seq, second.seq],
                message: "\(lifecycles.name(lifecycle.subscriber)) received a second completion "
                    + "(\(second.completion.swiftSpelling))\(source) after \(first.completion.swiftSpelling).",
                fix: "Send exactly one completion: guard the subscription with a finished state that is checked and set "
                    + "under one lock, and release the subscriber once it has completed.",
                hop: lifecycle.hop
            )
        }
    }
}
