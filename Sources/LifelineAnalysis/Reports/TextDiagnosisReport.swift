import LifelineLog

/// Diagnoses told for people: grouped by subscription, naming types and labels, each with
/// the events that prove it quoted as a short timeline, and its fix.
///
/// ```
/// 1 error in 1 subscription.
///
/// PassthroughSubject #1 → PassthroughSubject.Conduit #3 → Sink "ui" #2
///   error subscriber-deallocated-early: Sink "ui" #2 was deallocated while …
///     @2  main  Sink "ui" #2.receive(subscription: PassthroughSubject.Conduit #3) begins
///     @9  main  Sink "ui" #2 is found deallocated (last seen alive at @6)
///     fix: Keep Sink "ui" #2 alive …
/// ```
public struct TextDiagnosisReport: Sendable {
    /// The longest evidence excerpt quoted in full; longer ones keep their first and last
    /// lines.
    static let excerptLimit = 10
    /// How many findings with one fingerprint are printed in full.
    static let repeatLimit = 3

    /// The trace the diagnoses are about.
    public let trace: Trace
    /// The diagnoses, in the order ``TraceAnalyzer`` gives them.
    public let diagnoses: [Diagnosis]
    /// The pipelines of the trace, when the caller has them: a subscription's heading then
    /// says which of the pipelines made at its line it belongs to, when that line made several.
    public let pipelines: TracePipelines?
    /// The problems Combine's implementation causes, listed apart from the findings and not
    /// counted with them (``LibraryFinding/find(in:)``).
    public let library: [LibraryFinding]
    /// How many findings a baseline accepted and left out of ``diagnoses`` (`lifeline diagnose
    /// --baseline`): the summary then speaks of new problems, and counts the known ones.
    public let accepted: Int?

    /// Creates a report; `accepted` is how many findings a baseline left out, `nil` without one.
    public init(
        trace: Trace, diagnoses: [Diagnosis], pipelines: TracePipelines? = nil, library: [LibraryFinding] = [], accepted: Int? = nil
    ) {
        self.trace = trace
        self.diagnoses = diagnoses
        self.pipelines = pipelines
        self.library = library
        self.accepted = accepted
    }

    /// The report's text, ending with a newline.
    public func render() -> String {
        var lines: [String] = []
        for damage in trace.damage {
            lines.append("note: \(damage).")
        }
        if !TraceLifecycles.endIsKnown(trace.damage) {
            lines.append("note: checks about the end of the recording (demand-stalled, leaked-subscription) were skipped.")
        }
        let groups = groupedByHop()
        lines.append(summary(groupCount: groups.filter { $0.hop != nil }.count))
        // Checks skipped for damage are noted above; the missing snapshot is said with the summary.
        if trace.snapshots.isEmpty, let unchecked = SkippedCheck.skipped(in: trace).first {
            lines.append("note: \(unchecked.sentence)")
        }
        let events = EventPositions(trace.events)
        let repeated = repeatedPipelineOfSubscriber()
        // A finding whose fingerprint was already printed in full `repeatLimit` times is only
        // counted: a race that happened 3,000 times is one bug.
        var printed: [String: Int] = [:]
        var omitted: [(fingerprint: String, code: String, evidence: [UInt64])] = []
        for group in groups {
            let shown = group.diagnoses.filter { diagnosis in
                guard !diagnosis.fingerprint.isEmpty else { return true }
                printed[diagnosis.fingerprint, default: 0] += 1
                guard printed[diagnosis.fingerprint]! > Self.repeatLimit else { return true }
                omitted.append((diagnosis.fingerprint, diagnosis.code, diagnosis.evidence))
                return false
            }
            guard !shown.isEmpty else { continue }
            lines.append("")
            lines.append(group.hop.map { heading($0, pipeline: repeated[$0.subscriber]) } ?? "Other findings")
            for diagnosis in shown {
                lines.append("  \(diagnosis.severity.rawValue) \(diagnosis.code): \(diagnosis.message)")
                lines += excerpt(diagnosis.evidence.map { seq in
                    events.event(seq).map { TimelineLine($0, in: trace) } ?? TimelineLine(missing: seq)
                })
                if let leakTrace = diagnosis.leakTrace { lines += self.lines(of: leakTrace) }
                lines.append("    fix: \(diagnosis.fix)")
                if !diagnosis.fingerprint.isEmpty { lines.append("    fingerprint: \(diagnosis.fingerprint)") }
            }
        }
        if !omitted.isEmpty {
            lines += ["", "Repeated findings (each printed \(Self.repeatLimit) times above; the JSON report has them all)"]
            for fingerprint in Set(omitted.map(\.fingerprint)).sorted() {
                let more = omitted.filter { $0.fingerprint == fingerprint }
                let firsts = more.prefix(5).compactMap { $0.evidence.first.map { "@\($0)" } }.joined(separator: ", ")
                lines.append("  \(more.count) more \(more[0].code) with fingerprint \(fingerprint), first evidence at \(firsts)"
                    + (more.count > 5 ? ", …" : ""))
            }
        }
        if !library.isEmpty {
            lines += ["", "Combine's own (its implementation's problems, not your code's; not counted above)"]
            for finding in library {
                lines.append("  \(finding.count) × \(finding.code) \(finding.types.joined(separator: ", ")): \(finding.summary): "
                    + "\(finding.reason).")
                lines.append("    fingerprint: \(finding.fingerprint)")
            }
        }
        // Labels, type names and values are the program's text: each line is escaped as a
        // whole so that none of them can add a line or reach the terminal as a control sequence.
        return lines.map { TraceText.printable($0) }.joined(separator: "\n") + "\n"
    }

    /// A leak trace, one line per object with its verdict and one per reference, suspects
    /// marked:
    ///
    /// ```text
    ///     leak trace:
    ///       Screen #9: expected, alive, outside the loop
    ///         ↓ Screen.model
    ///       ViewModel #4: unknown, on a loop that holds its own AnyCancellable: …
    ///         ↓ ViewModel.cancellables  ~~~ suspect
    ///       …
    ///         ↺ back to ViewModel #4
    /// ```
    private func lines(of leakTrace: LeakTrace) -> [String] {
        var lines = ["    leak trace:"]
        let name = { (id: TraceObjectID) in self.trace.object(id)?.placedName ?? "object \(id)" }
        for step in leakTrace.steps {
            lines.append("      \(name(step.object)): \(step.verdict.rawValue), \(step.reason)")
            if let reference = step.reference {
                lines.append("        ↓ \(reference)\(step.isSuspect ? "  ~~~ suspect" : "")")
            }
        }
        if let start = leakTrace.loopStart, leakTrace.steps.indices.contains(start) {
            lines.append("        ↺ back to \(name(leakTrace.steps[start].object))")
        }
        return lines
    }

    private func summary(groupCount: Int) -> String {
        let known = accepted.map { "; the baseline accepts \($0) known \(plural($0, "finding"))" } ?? ""
        guard !diagnoses.isEmpty else {
            let events = "\(trace.events.count) \(plural(trace.events.count, "event"))"
            return accepted == nil ? "No lifecycle problems found in \(events)." : "No new lifecycle problems found in \(events)\(known)."
        }
        let counts = Diagnosis.Severity.allCases.reversed().compactMap { severity -> String? in
            let count = diagnoses.count { $0.severity == severity }
            guard count > 0 else { return nil }
            return "\(count) \(plural(count, severity == .info ? "info" : severity.rawValue, severity == .info ? "info" : nil))"
        }
        let scope = groupCount > 0 ? " in \(groupCount) \(plural(groupCount, "subscription"))" : ""
        return accepted == nil ? "\(counts.joined(separator: ", "))\(scope)." : "New: \(counts.joined(separator: ", "))\(scope)\(known)."
    }

    /// The pipeline each subscriber belongs to, for the pipelines that share their name with
    /// others: the first that holds it.
    private func repeatedPipelineOfSubscriber() -> [TraceObjectID: Pipeline] {
        var result: [TraceObjectID: Pipeline] = [:]
        for pipeline in pipelines?.pipelines ?? [] where pipeline.repetition != nil {
            for object in pipeline.objects where result[object] == nil { result[object] = pipeline }
        }
        return result
    }

    /// `Subject #1 → Conduit #3 → Sink #2, subscribed in Rows.watch at Rows.swift:63`, with
    /// `(2nd of 2 made there, P8)` when `repeated`, the hop's pipeline, shares its line with
    /// other pipelines.
    private func heading(_ hop: Hop, pipeline repeated: Pipeline?) -> String {
        let name = { (id: TraceObjectID) in trace.object(id)?.displayName ?? "object \(id)" }
        let chain = [
            hop.publisher.map(name) ?? "(no subscribe call recorded)",
            hop.subscription.map(name) ?? "(no subscription yet)",
            name(hop.subscriber),
        ].joined(separator: " → ")
        var origin = [hop.subscriber, hop.subscription].lazy.compactMap { $0.flatMap { trace.object($0)?.originPhrase } }.first
        if let repeated, let repetition = repeated.repetition {
            origin = origin.map { "\($0) (\(repetition) made there, \(repeated.id))" } ?? "\(repeated.name), \(repeated.id)"
        }
        // A hand-written subscriber's own code: where it asked for values when it was handed
        // the subscription.
        let requested = hop.subscription.flatMap { subscription in
            trace.events.lazy.compactMap { event -> TraceSourceLocation? in
                guard case .request(subscription, _) = event.kind else { return nil }
                return trace.requestLocation(of: event)
            }.first
        }
        return [chain, origin, requested.map { "requested in \($0)" }].compactMap { $0 }.joined(separator: ", ")
    }

    private func excerpt(_ timeline: [TimelineLine]) -> [String] {
        var shown: [TimelineLine?] = timeline
        if timeline.count > Self.excerptLimit {
            let head = Self.excerptLimit / 2
            let tail = Self.excerptLimit - head - 1
            shown = Array(timeline.prefix(head)) + [nil] + Array(timeline.suffix(tail))
        }
        let seqWidth = timeline.map { "@\($0.seq)".count }.max() ?? 0
        let contextWidth = timeline.map { TraceText.printable($0.context).count }.max() ?? 0
        return shown.map { line in
            guard let line else { return "    … \(timeline.count - Self.excerptLimit + 1) more events" }
            let context = TraceText.printable(line.context)
            return "    \(padded("@\(line.seq)", to: seqWidth))  \(padded(context, to: contextWidth))  \(line.text)"
        }
    }

    /// The diagnoses grouped by hop, groups in the order of their first diagnosis; findings
    /// about no single hop come last.
    private func groupedByHop() -> [(hop: Hop?, diagnoses: [Diagnosis])] {
        var groups: [(hop: Hop?, diagnoses: [Diagnosis])] = []
        for diagnosis in diagnoses where diagnosis.hop != nil {
            if let index = groups.firstIndex(where: { $0.hop == diagnosis.hop }) {
                groups[index].diagnoses.append(diagnosis)
            } else {
                groups.append((diagnosis.hop, [diagnosis]))
            }
        }
        let others = diagnoses.filter { $0.hop == nil }
        if !others.isEmpty { groups.append((nil, others)) }
        return groups
    }

    private func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private func plural(_ count: Int, _ word: String, _ pluralForm: String? = nil) -> String {
        count == 1 ? word : (pluralForm ?? word + "s")
    }
}
