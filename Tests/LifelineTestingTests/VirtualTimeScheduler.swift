import Dispatch
import OpenCombineShim

/// A scheduler whose clock moves only when a test advances it, so that time-based operators
/// (debounce, throttle, timeout, delay) run the same way every time, with no waiting.
///
/// Actions run on the thread that calls ``advance(by:)``, in the order of their due time and,
/// for equal times, the order they were scheduled. It is for one thread at a time.
final class VirtualTimeScheduler: Scheduler {
    typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
    typealias SchedulerOptions = Never

    private struct Action {
        let order: Int
        let due: SchedulerTimeType
        let run: () -> Void
    }

    private(set) var now = SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1_000_000_000))
    private var pending: [Action] = []
    private var scheduledCount = 0

    var minimumTolerance: SchedulerTimeType.Stride { .zero }

    func schedule(options: Never?, _ action: @escaping () -> Void) {
        enqueue(at: now, action)
    }

    func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: Never?, _ action: @escaping () -> Void) {
        enqueue(at: date, action)
    }

    func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: Never?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        let repetition = Repetition()
        func repeating(at due: SchedulerTimeType) {
            enqueue(at: due) { [weak self] in
                guard !repetition.isCancelled, let self else { return }
                action()
                repeating(at: self.now.advanced(by: interval))
            }
        }
        repeating(at: date)
        return repetition
    }

    /// Moves the clock forward by `stride`, running every action that falls due on the way.
    func advance(by stride: SchedulerTimeType.Stride) {
        let target = now.advanced(by: stride)
        while let index = nextDueIndex(by: target) {
            let action = pending.remove(at: index)
            if action.due > now { now = action.due }
            action.run()
        }
        now = target
    }

    private func nextDueIndex(by target: SchedulerTimeType) -> Int? {
        pending.indices
            .filter { pending[$0].due <= target }
            .min { (pending[$0].due, pending[$0].order) < (pending[$1].due, pending[$1].order) }
    }

    private func enqueue(at due: SchedulerTimeType, _ run: @escaping () -> Void) {
        scheduledCount += 1
        pending.append(Action(order: scheduledCount, due: due, run: run))
    }

    private final class Repetition: Cancellable {
        private(set) var isCancelled = false
        func cancel() { isCancelled = true }
    }
}
