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
/// When the log has a hang record (the watchdog's, `SIGQUIT`'s, a test's timeout) with no
/// event after it, each finding begins with it: when the program was seen
/// hanging, how long no event had happened and how many pipelines were open; its evidence
/// cites the event the record follows.
///
/// A log with its end record says how the recording ended, and `demand-stalled` covers what
/// stood still there, so this rule finds nothing in it.
public struct WaitsOnRule: DiagnosisRule {
    public let code = "waits-on"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        let open = Self.openEnds(in: lifecycles)
        guard !open.isEmpty else { return [] }
        let innerHops = HopWait.innerHops(in: lifecycles)
        let hang = Self.finalHang(in: lifecycles.trace)
        return open.map { lifecycle in
            diagnosis(
                of: HopWait(lifecycle, in: lifecycles, innerHops: innerHops), in: lifecycles,
                hang: hang.map { ($0, open.count) }
            )
        }
    }

    /// The ends of the pipelines this rule explains: every pipeline still open (subscribed, or
    /// awaiting its subscription) when a log without its end record ended; none in a log with one.
    static func openEnds(in lifecycles: TraceLifecycles) -> [Lifecycle] {
        guard lifecycles.trace.damage.contains(.notClosed) else { return [] }
        return lifecycles.lifecycles.filter { lifecycle in
            (lifecycle.state == .subscribed || lifecycle.state == .awaitingSubscription) && lifecycles.isPipelineEnd(lifecycle)
        }
    }

    /// The last hang record of `trace` when no event followed it: the recorder saw the program
    /// hanging in the state the log ends in.
    static func finalHang(in trace: Trace) -> TraceHang? {
        guard let hang = trace.hangs.last, hang.seq == (trace.events.last?.seq ?? 0) else { return nil }
        return hang
    }

    /// `The program was seen hanging at 7.412 s, after @23: no event for 5.0 s while 2
    /// pipelines were open (the watchdog's hang record).`
    static func hangSentence(_ hang: TraceHang, openPipelines: Int) -> String {
        let source = source(of: hang)
        let after = hang.seq > 0 ? ", after @\(hang.seq)" : ""
        return "The program was seen hanging at \(seconds(hang.time, decimals: 3))\(after): no event for "
            + "\(seconds(hang.idle, decimals: 1)) while \(open(openPipelines)) (\(source))."
    }

    /// Where a log without its end record ends, as a picture heads what its open pipelines wait
    /// on: when its last hang record follows its last event, the moment the program was seen
    /// hanging (``hangSentence(_:openPipelines:)``); otherwise `The log ends here, without its
    /// end record, while 2 pipelines were open.`
    package static func logEnding(of trace: Trace, openPipelines: Int) -> String {
        if let hang = finalHang(in: trace) { return hangSentence(hang, openPipelines: openPipelines) }
        return "The log ends here, without its end record, while \(open(openPipelines))."
    }

    /// `1 pipeline was open`, `2 pipelines were open`.
    private static func open(_ pipelines: Int) -> String {
        pipelines == 1 ? "1 pipeline was open" : "\(pipelines) pipelines were open"
    }

    /// What wrote `hang`: `the watchdog's hang record`, `a hang record written on SIGQUIT`.
    package static func source(of hang: TraceHang) -> String {
        switch hang.cause {
        case .watchdog: "the watchdog's hang record"
        case .signal: "a hang record written on SIGQUIT"
        case .timeout: "a hang record written when the test's timeout ran out"
        }
    }

    /// `7.412 s`: `nanoseconds` rounded to `decimals` (1 to 9) places of a second. Any count
    /// a log can hold, up to 2⁶⁴ − 1, is written without overflow.
    private static func seconds(_ nanoseconds: UInt64, decimals: Int) -> String {
        var scale: UInt64 = 1
        for _ in 0..<min(max(decimals, 1), 9) { scale *= 10 }
        let unit = 1_000_000_000 / scale
        let units = nanoseconds / unit + (nanoseconds % unit >= unit / 2 ? 1 : 0)
        let fraction = String(units % scale)
        let places = String(scale).count - 1
        return "\(units / scale).\(String(repeating: "0", count: places - fraction.count))\(fraction) s"
    }

    private func diagnosis(of wait: HopWait, in lifecycles: TraceLifecycles, hang: (TraceHang, Int)?) -> Diagnosis {
        let end = wait.lifecycle
        let wording = WaitWording(lifecycles: lifecycles, end: end)
        var sentences: [String] = []
        if let (hang, open) = hang { sentences.append(Self.hangSentence(hang, openPipelines: open)) }
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
        // The hang record follows the last event: citing it cites the moment the program was seen hanging.
        let evidence = Set(wait.hops.flatMap { wording.evidence(of: $0) } + (hang.map { $0.0.seq > 0 ? [$0.0.seq] : [] } ?? []))
        var fixes: [String] = []
        for hop in stuck where !fixes.contains(wording.fix(for: hop)) { fixes.append(wording.fix(for: hop)) }
        return Diagnosis(
            code: code, severity: stuck.contains(where: \.provesAStall) ? .warning : .info,
            objects: objects, evidence: evidence.sorted(), message: sentences.joined(separator: " "),
            fix: fixes.joined(separator: " "), hop: end.hop
        )
    }
}
