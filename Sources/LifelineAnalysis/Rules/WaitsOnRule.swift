import LifelineLog

/// Explains every pipeline still open when a log ends without its end record (the program
/// was killed, timed out or crashed, as a program that hangs is): what each of its hops was
/// waiting on, from the end of the pipeline upstream, to the hop that could not move.
///
/// Each hop on the way is told by its demand outstanding, the values it received and those it
/// did not pass on, and its calls still in progress. The chain ends at a call that began and
/// never returned, a subscriber that never asked for a value or asked for no more, a
/// `receive(on:)` or `delay` stage holding values its scheduler never ran, a subscription that
/// was never handed over, a hop that ended without its end reaching the hop below, or a
/// publisher that sent nothing more although it was asked: a `Future` whose promise was not
/// called, a subject nothing was sent to, a `flatMap`'s inner publisher that never finished.
/// A chain that ends where the log proves a stall (a call that never returned, a subscriber
/// that asks for nothing) is a warning; one that ends where something may yet move, info: the
/// log cannot say whether the program meant it to.
///
/// A log with its end record says how the recording ended, and `demand-stalled` covers what
/// stood still there, so this rule finds nothing in it.
public struct WaitsOnRule: DiagnosisRule {
    public let code = "waits-on"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        guard lifecycles.trace.damage.contains(.notClosed) else { return [] }
        let innerHops = HopWait.innerHops(in: lifecycles)
        return lifecycles.lifecycles.compactMap { lifecycle in
            guard lifecycle.state == .subscribed || lifecycle.state == .awaitingSubscription,
                  lifecycles.isPipelineEnd(lifecycle)
            else { return nil }
            return diagnosis(of: HopWait(lifecycle, in: lifecycles, innerHops: innerHops), in: lifecycles)
        }
    }

    private func diagnosis(of wait: HopWait, in lifecycles: TraceLifecycles) -> Diagnosis {
        let end = wait.lifecycle
        let wording = WaitWording(lifecycles: lifecycles, end: end)
        var sentences: [String] = []
        // Where the end itself cannot move, the reason says what it stands at.
        if wait.provesAStall {
            sentences.append("When the log ended, this pipeline was still open.")
        } else {
            sentences.append("When the log ended, \(wording.stageName(end)) was still waiting: \(wording.state(of: end)).")
        }
        sentences += wording.upstreamSentences(of: wait)
        let stuck = wait.stuck
        sentences.append("Waits on: " + wording.chains(from: wait).joined(separator: "; ") + ".")

        var objects = [end.subscriber] + [end.subscription, end.publisher].compactMap { $0 }
        for hop in wait.hops.dropFirst() {
            objects.append(hop.lifecycle.subscriber)
            if let publisher = hop.lifecycle.publisher { objects.append(publisher) }
        }
        var seen: Set<TraceObjectID> = []
        objects = objects.filter { seen.insert($0).inserted }
        let evidence = Set(wait.hops.flatMap { wording.evidence(of: $0) })
        var fixes: [String] = []
        for hop in stuck where !fixes.contains(wording.fix(for: hop)) { fixes.append(wording.fix(for: hop)) }
        return Diagnosis(
            code: code, severity: stuck.contains(where: \.provesAStall) ? .warning : .info,
            objects: objects, evidence: evidence.sorted(), message: sentences.joined(separator: " "),
            fix: fixes.joined(separator: " "), hop: end.hop
        )
    }
}
