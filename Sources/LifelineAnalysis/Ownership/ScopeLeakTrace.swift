import LifelineLog

/// The ``LeakTrace`` of a pipeline an observed scope left subscribed (`leaked-subscription`
/// with `--scope`): the shortest chain of strong references that held its subscriber in the
/// snapshot that explains it, from where that chain starts (a registered root, a global variable, an object
/// nothing in the graph holds, or an object of a loop nothing else holds) to the subscriber.
///
/// Only the subscriber is proven stuck: it was still subscribed after its scope ended. What
/// holds it is unknown: the log cannot tell an owner meant to outlive the scope from one that
/// leaked with it. The suspect references are those the program's own objects hold (a view
/// model's set of AnyCancellables), which a fix can cancel or release; when there is none, the
/// reference to the subscriber.
struct ScopeLeakTrace {
    let trace: LeakTrace

    /// The trace of `object`, held as `explanation` says in `graph`; `nil` when no chain of
    /// references leads to it (it is on a loop, which `retain-cycle` traces, or nothing in the
    /// graph explains it).
    init?(
        of object: TraceObjectID, held explanation: AliveExplanation, in graph: OwnershipGraph, scopeEnd: UInt64,
        lifecycles: TraceLifecycles
    ) {
        let origin: String, path: [TraceSnapshot.Edge]
        switch explanation {
        case .heldByRoot(let root, let rootPath) where !rootPath.isEmpty && graph.node(root)?.kind == .global:
            (origin, path) = ("a global variable: it lives as long as the program", rootPath)
        case .heldByRoot(_, let rootPath) where !rootPath.isEmpty:
            (origin, path) = ("a registered root: what holds it is outside the graph", rootPath)
        case .unheld(_, let unheldPath) where !unheldPath.isEmpty:
            (origin, path) = ("nothing in the graph holds it: the stack, a global or a Task may", unheldPath)
        case .heldByCycle(_, let cyclePath) where !cyclePath.isEmpty:
            (origin, path) = ("on a loop that nothing else in the graph holds", cyclePath)
        default:
            return nil
        }
        let snapshot = graph.snapshot
        let programs = path.map { edge in
            snapshot.node(edge.from)?.kind != .cancellable && RetainCycleRule.isProgramObject(edge.from, in: snapshot, lifecycles: lifecycles)
        }
        let anyProgram = programs.contains(true)
        var steps = path.enumerated().map { position, edge in
            LeakTrace.Step(
                object: edge.from, verdict: .unknown, reason: position == 0 ? origin : "holds it",
                reference: LoopLeakTrace.reference(edge, in: lifecycles.trace),
                isSuspect: anyProgram ? programs[position] : position == path.count - 1
            )
        }
        steps.append(LeakTrace.Step(
            object: object, verdict: .stuck, reason: "still subscribed after the observed scope ended at @\(scopeEnd)",
            reference: nil, isSuspect: false
        ))
        trace = LeakTrace(steps: steps, loopStart: nil)
    }
}
