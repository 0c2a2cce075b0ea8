import AppMutations
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The clock in the toolbar, driven by a DispatchSource timer on the clock queue. Correct: the
/// timer is cancelled when the clock stops, and the sink holds the model weakly.
final class ClockModel: @unchecked Sendable {
    private let ticks = PassthroughSubject<Int, Never>()
    private let timer: DispatchSourceTimer
    private var cancellable: AnyCancellable?
    private(set) var text = ""

    private let mutation: AppMutation

    init(queues: AppQueues, mutation: AppMutation = .none) {
        self.mutation = mutation
        timer = DispatchSource.makeTimerSource(queue: queues.clock)
        var count = 0
        let ticks = ticks
        timer.setEventHandler {
            count += 1
            ticks.send(count)
        }
        cancellable = ticks
            .map { "\($0 / 60):\(String(format: "%02d", $0 % 60))" }
            .sink { [weak self] in self?.text = $0 }
    }

    /// Starts ticking every `interval`.
    func start(every interval: DispatchTimeInterval) {
        timer.schedule(deadline: .now(), repeating: interval)
        timer.resume()
        if mutation == .releasedEarly {
            cancellable = nil // seeded: released-early
        }
    }

    /// Stops the ticker and finishes the clock's pipeline.
    func stop(on queue: DispatchQueue) {
        queue.sync {
            timer.cancel()
            ticks.send(completion: .finished)
        }
    }
}
