import LifelineLog

/// Why an object was alive in a snapshot, as ``OwnershipGraph/whyAlive(_:)`` finds it.
public enum AliveExplanation: Hashable, Sendable {
    /// The snapshot has no object with that id.
    case unknown
    /// The object had been deallocated when the snapshot was taken.
    case deallocated
    /// The snapshot does not show the object alive, and the log records its death: before the
    /// snapshot was taken, or found by a later check that last saw it alive before the
    /// snapshot (see ``TraceLifecycles/whyAlive(_:in:)``).
    case deallocatedBefore(Deallocation)
    /// A registered root or a global variable holds it through `path` (empty when the object is
    /// the root itself).
    case heldByRoot(TraceObjectID, path: [TraceSnapshot.Edge])
    /// Nothing in the graph holds the object the path starts from: it is held from the stack,
    /// a global or a place the inspection could not see, if at all. `path` leads from that
    /// object to the one asked about; it is empty when nothing in the graph holds the object
    /// asked about.
    case unheld(TraceObjectID, path: [TraceSnapshot.Edge])
    /// A retain cycle that nothing else in the graph holds keeps the object alive, through
    /// `path` from one of the objects on the cycle's chain (empty when the object is on it).
    /// Something the graph cannot see, such as the stack, may hold the cycle too.
    case heldByCycle(RetainCycle, path: [TraceSnapshot.Edge])
}

extension OwnershipGraph {
    /// ``whyAlive(_:)`` in one sentence, naming the object as `subject`.
    ///
    /// For example `ViewModel.cancellables → Set<AnyCancellable> → AnyCancellable → Sink keeps
    /// Sink #7 alive`, or `nothing in the graph holds Sink #7: only the stack, a global or
    /// something the inspection could not see can`. Objects that share a name with another
    /// one of the snapshot are told apart (``distinctName(of:)``): `Timeout.Inner
    /// #116.downstream.subscriber → … keeps Timeout.Inner #125 alive, and nothing in the graph
    /// holds Timeout.Inner #116`.
    public func sentence(explaining explanation: AliveExplanation, subject: String) -> String {
        switch explanation {
        case .unknown:
            return "snapshot \(snapshot.index) has no object \(subject)"
        case .deallocated:
            return "\(subject) was already deallocated"
        case .deallocatedBefore(let death):
            let seen = death.lastSeenAlive.map { " (last seen alive at @\($0))" } ?? ""
            let when = death.seq <= snapshot.seq ? ", before the snapshot" : ""
            return "\(subject) was deallocated at @\(death.seq)\(seen)\(when)"
        case .heldByRoot(let root, let path) where path.isEmpty && node(root)?.kind == .global:
            return "\(subject) is a global variable: it lives as long as the program, and holds what it refers to until the "
                + "program assigns it"
        case .heldByRoot(_, let path) where path.isEmpty:
            return "\(subject) is a registered root: what holds it is outside the graph (the stack, a global or a Task)"
                + forAwaitLoops
        case .heldByRoot(_, let path):
            return "\(words(path)) keeps \(subject) alive"
        case .unheld(_, let path) where path.isEmpty:
            return "nothing in the graph holds \(subject): only the stack, a global, a Task or something the inspection "
                + "could not see can" + forAwaitLoops
        case .unheld(let origin, let path) where node(origin)?.kind == .task:
            // A running task holds itself until its closure returns: what keeps it is its work.
            let waiting = SuspendedTask(origin, in: snapshot, trace: trace).map { task in
                let loop = trace.object(task.subscriber)?.placedName ?? distinctName(of: task.subscriber)
                return ": it is suspended in a `for await` loop over \(loop), until that publisher completes "
                    + "or the task is cancelled"
            } ?? " until its closure returns"
            return "\(words(path)) keeps \(subject) alive, and \(distinctName(of: origin)) runs on by itself\(waiting); nothing in "
                + "the graph holds its handle"
        case .unheld(let origin, let path):
            return "\(words(path)) keeps \(subject) alive, and nothing in the graph holds \(distinctName(of: origin))"
        case .heldByCycle(let cycle, let path) where path.isEmpty:
            return "\(subject) is held by a retain cycle that nothing else in the graph holds: \(words(cycle.chain))"
        case .heldByCycle(let cycle, let path):
            return "\(words(path)) keeps \(subject) alive, and \(distinctName(of: path[0].from)) is held by a retain cycle that "
                + "nothing else in the graph holds: \(words(cycle.chain))"
        }
    }

    /// What the snapshot shows of Swift concurrency, as a clause that starts with a comma, or
    /// nothing: the `for await` loops over a publisher that were still waiting for values
    /// (their `AsyncPublisher` iterator's subscriber alive), each named with the place in the
    /// program that made it. A `Task` that runs such a loop holds what its closure captured,
    /// and the inspection does not read a task's frames.
    var forAwaitLoops: String {
        let loops = snapshot.nodes.filter { node in node.alive && trace.object(node.id)?.isForAwaitSubscriber == true }
        guard !loops.isEmpty else { return "" }
        let names = loops.prefix(3).map { node in trace.object(node.id)?.placedName ?? "object \(node.id)" }
        let running = loops.count == 1 ? "a `for await` loop over a publisher was" : "\(loops.count) `for await` loops over publishers were"
        return "; \(running) still running in a Task, whose frames the inspection does not read ("
            + names.joined(separator: ", ") + (loops.count > 3 ? ", …" : "") + ")"
    }
}
