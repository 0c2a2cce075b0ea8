import LifelineLog

/// The ``LeakTrace`` of a loop that `retain-cycle` reports: the owner that still holds it, if
/// any, then the loop's chain of references, each object with the loop's verdict and the fact
/// behind it.
///
/// The suspect references are the loop's references that the program's own objects hold (a
/// view model's field, a set that stores an `AnyCancellable`) and the closure captures of them:
/// the ones the program made and a fix can break or weaken. A loop of Combine's objects alone
/// has no such reference, and every reference on it is a suspect: the operator or subscription
/// that keeps them after its work ended is the code to fix.
struct LoopLeakTrace {
    let trace: LeakTrace

    init(_ cycle: RetainCycle, in graph: OwnershipGraph, verdict: LoopVerdict, lifecycles: TraceLifecycles) {
        let snapshot = graph.snapshot
        var chain = cycle.chain
        var steps: [LeakTrace.Step] = []
        if case .owned(let edge) = verdict, let start = chain.firstIndex(where: { $0.from == edge.to }) {
            chain = Array(chain[start...] + chain[..<start])
            steps.append(LeakTrace.Step(
                object: edge.from, verdict: .expected, reason: "alive, outside the loop",
                reference: Self.reference(edge, in: lifecycles.trace), isSuspect: false
            ))
        }
        let loopStart = steps.count
        let endings = Dictionary(
            chain.compactMap { HopEnding(of: $0.from, before: snapshot.seq, in: lifecycles) }.map { ($0.object, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        // The program's own objects, but not an AnyCancellable: its cancel closure is Combine's.
        let isProgram = { (id: TraceObjectID) in
            snapshot.node(id)?.kind != .cancellable && RetainCycleRule.isProgramObject(id, in: snapshot, lifecycles: lifecycles)
        }
        let programs = chain.map { edge in isProgram(edge.from) || (edge.field.hasSuffix("(closure)") && isProgram(edge.to)) }
        let anyProgram = programs.contains(true)
        for (position, edge) in chain.enumerated() {
            let (stepVerdict, reason) = Self.verdict(of: edge.from, loop: verdict, ending: endings[edge.from])
            steps.append(LeakTrace.Step(
                object: edge.from, verdict: stepVerdict, reason: reason,
                reference: Self.reference(edge, in: lifecycles.trace), isSuspect: !anyProgram || programs[position]
            ))
        }
        trace = LeakTrace(steps: steps, loopStart: loopStart)
    }

    /// The verdict of one object on a loop whose verdict is `loop`, and its reason.
    private static func verdict(of object: TraceObjectID, loop: LoopVerdict, ending: HopEnding?) -> (LeakTrace.Verdict, String) {
        switch loop {
        case .ended:
            return (.stuck, ending?.phrase ?? "kept by the loop after its work was over")
        case .released(let since, _, _):
            return (.stuck, ending?.phrase ?? "only the loop and Combine's own objects held it from snapshot \(since.index) on")
        case .outOfReach:
            return (.stuck, "nothing outside the loop references it")
        case .owned, .heldUnseen:
            return (.unknown, "on a loop that holds its own AnyCancellable: it leaks when the owner lets go")
        case .cancelInReach, .unknown:
            return (.unknown, "nothing proven")
        }
    }

    /// A reference as `Holder.field`, with no id: a collection's element positions read `[]`,
    /// as they differ from run to run (a set's order is its hash's). A closure's reference ends
    /// with where the closure is written: `Conduit.downstream.subscriber.map (closure) at
    /// SearchModel.swift:16`.
    static func reference(_ edge: TraceSnapshot.Edge, in trace: Trace) -> String {
        let holder = trace.object(edge.from)?.shortTypeName ?? "object"
        let field = edge.fieldWithoutPositions
        let place = edge.closurePlace(in: trace)?.fileAndLine.map { " at \($0)" } ?? ""
        // A global variable's reference is its storage (`static Service.shared`), or a place in
        // it (`static Settings.current+8`).
        return (field.isEmpty || field.hasPrefix("+") ? holder + field : "\(holder).\(field)") + place
    }
}
