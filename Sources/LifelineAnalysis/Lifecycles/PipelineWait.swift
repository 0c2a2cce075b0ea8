import LifelineLog

/// What a pipeline still open when its log ended without its end record waits on, stage by
/// stage, in a few words: the chain ``WaitsOnRule`` explains, as a sequence diagram writes it
/// beside each stage's lane and `lifeline pipelines` beside the pipeline.
package struct PipelineWait: Sendable {
    /// One stage on the chain, and what it waits on.
    package struct Stage: Hashable, Sendable {
        /// How findings name the stage: `First.Inner #3 (Search.swift:12)`, `Future #2`.
        package let name: String
        /// The objects a picture may draw the stage for, its own first: a hop's subscriber and
        /// subscription; a publisher's, itself and its subscription.
        package let objects: [TraceObjectID]
        /// What it waits on, or why it cannot move: `waits on First.Inner #3 (Search.swift:12)`,
        /// `never asked for a value`, `its promise was never called`.
        package let note: String
        /// Whether the chain ends at this stage.
        package let endsChain: Bool
    }

    /// The hop at the pipeline's end.
    package let end: Lifecycle.ID
    /// The stages from the pipeline's end upstream, each branch in turn.
    package let stages: [Stage]

    /// Where the chain ends, each branch's end joined with `; `: `PassthroughSubject #2:
    /// nothing was sent to it`, `Sink "ticker" #5 (Ticker.swift:9): its receive(_:) at @4 never
    /// returned`.
    package var summary: String {
        stages.filter(\.endsChain).map { "\($0.name): \($0.note)" }.joined(separator: "; ")
    }

    /// The wait of every pipeline ``WaitsOnRule`` explains, in its findings' order; none for a
    /// log with its end record.
    package static func all(in lifecycles: TraceLifecycles) -> [PipelineWait] {
        let ends = WaitsOnRule.openEnds(in: lifecycles)
        guard !ends.isEmpty else { return [] }
        let innerHops = HopWait.innerHops(in: lifecycles)
        return ends.map { end in
            let wording = WaitWording(lifecycles: lifecycles, end: end)
            let hops = HopWait(end, in: lifecycles, innerHops: innerHops).hops
            return PipelineWait(end: end.id, stages: hops.flatMap { stages(of: $0, wording: wording) })
        }
    }

    /// The stage of `hop`, and, where the chain ends at a publisher it waits on, that
    /// publisher's.
    private static func stages(of hop: HopWait, wording: WaitWording) -> [Stage] {
        let lifecycle = hop.lifecycle
        let name = wording.stageName(lifecycle)
        let objects = [lifecycle.subscriber] + [lifecycle.subscription].compactMap { $0 }
        guard hop.next.isEmpty else {
            return [Stage(name: name, objects: objects, note: wording.briefWait(of: hop), endsChain: false)]
        }
        guard let source = wording.awaitedSource(of: hop) else {
            return [Stage(name: name, objects: objects, note: wording.briefEnding(of: hop), endsChain: true)]
        }
        return [
            Stage(name: name, objects: objects, note: "waits on \(source.name)", endsChain: false),
            Stage(name: source.name, objects: source.objects, note: wording.briefEnding(of: hop), endsChain: true),
        ]
    }
}
