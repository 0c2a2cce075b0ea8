import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// What the status bar shows.
final class StatusBar {
    var uploadedBytes = 0
    var online = false
    var seconds = 0
}

/// The status bar: the bytes uploaded so far (`scan`), whether the server is reachable, and a
/// running clock from a repeating timer.
///
/// Correct: every token is stored, `assign(to:on:)` targets the bar, which the model owns, not
/// the model, and ``close()`` stops the clock.
final class StatusModel {
    let bar = StatusBar()
    private var cancellables = Set<AnyCancellable>()

    init(worker: UploadWorker, server: PhotoServer, queues: BackupQueues) {
        worker.uploadedBytes
            .scan(0, +)
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .assign(to: \.uploadedBytes, on: bar)
            .store(in: &cancellables)

        server.reachable
            .removeDuplicates()
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .assign(to: \.online, on: bar)
            .store(in: &cancellables)

        Timer.publish(every: 0.02, on: queues.timerThread.runLoop, in: .default)
            .autoconnect()
            .scan(0) { elapsed, _ in elapsed + 1 }
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .assign(to: \.seconds, on: bar)
            .store(in: &cancellables)
    }

    /// Closes the status bar: the clock stops.
    func close() {
        cancellables.removeAll()
    }
}
