import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// What the status bar shows. The connection model writes into it with `assign(to:on:)`; it
/// does not own the model, so the assignment holds no loop.
final class StatusBar {
    var status = ConnectionStatus.connecting
    var beats = 0
}

/// The connection: one heartbeat shared with `share()` by the status bar and the beat counter.
///
/// Correct: both tokens are stored in the model, and `assign(to:on:)` targets the status bar,
/// which the model owns, not the model itself; `disconnect()` cancels both, which cancels the
/// heartbeat's timer.
final class ConnectionModel {
    let statusBar = StatusBar()
    /// The shared heartbeat: one timer for every subscriber.
    let heartbeat: AnyPublisher<Int, Never>
    private var cancellables = Set<AnyCancellable>()

    init(queues: ChatQueues) {
        heartbeat = HeartbeatPublisher(interval: .milliseconds(10), queues: queues).share().eraseToAnyPublisher()
        heartbeat
            .map { tick in ConnectionStatus.online(latency: 20 + tick % 3) }
            .removeDuplicates()
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .assign(to: \.status, on: statusBar)
            .store(in: &cancellables)
        heartbeat
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [statusBar] _ in statusBar.beats += 1 }
            .store(in: &cancellables)
    }

    /// Stops the heartbeat.
    func disconnect() {
        cancellables.removeAll()
    }
}
