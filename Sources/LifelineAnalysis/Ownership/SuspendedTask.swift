import LifelineLog

/// A Swift `Task` that a snapshot shows suspended on a subscriber: a `for await` loop over a
/// publisher, waiting for its next value. The subscriber of an `AsyncPublisher` keeps the
/// continuation of the task that waits for its next value, and a continuation is the task's
/// address: heap inspection draws it as an `unowned(unsafe)` reference from the subscriber (or
/// from the array it keeps continuations in) to the task.
///
/// Such a task runs until the publisher completes or the task is cancelled, and its handle
/// (`Task` value) is the only way to cancel it: a loop that holds the handle holds the way to
/// end the subscription, as a loop that holds its own `AnyCancellable` does.
struct SuspendedTask: Hashable, Sendable {
    let task: TraceObjectID
    /// The subscriber whose continuation the task waits on.
    let subscriber: TraceObjectID

    /// The task `id` of `snapshot`, when it is suspended on a subscriber.
    init?(_ id: TraceObjectID, in snapshot: TraceSnapshot, trace: Trace) {
        guard snapshot.node(id)?.kind == .task else { return nil }
        let subscriber = snapshot.holders(of: id).lazy.filter { holder in
            snapshot.edges(from: holder).contains { $0.to == id && $0.ownership == .unownedUnsafe }
        }.compactMap { holder -> TraceObjectID? in
            switch snapshot.node(holder)?.kind {
            case .subscriber?: return holder
            case .collection?:
                return snapshot.holders(of: holder).first { keeper in
                    snapshot.node(keeper)?.kind == .subscriber
                        && snapshot.edges(from: keeper).contains { $0.to == holder && $0.ownership.isStrong }
                }
            default: return nil
            }
        }.first
        guard let subscriber else { return nil }
        self.task = id
        self.subscriber = subscriber
        self.place = snapshot.edges(from: id).lazy.compactMap { $0.closurePlace(in: trace)?.fileAndLine }.first
    }

    /// Where the task's closure is written (`ItemsModel.swift:16`), when the references it
    /// holds through its closure name it.
    let place: String?

    /// The task in words: `the Task at ItemsModel.swift:16` (`The Task …` to start a
    /// sentence), or its name in the log.
    func name(in lifecycles: TraceLifecycles, startingASentence: Bool = false) -> String {
        place.map { "\(startingASentence ? "The" : "the") Task at \($0)" } ?? lifecycles.name(task)
    }
}
