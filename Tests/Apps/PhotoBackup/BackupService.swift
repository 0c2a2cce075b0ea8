import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The background backup, which lives as long as the app: once the server is reachable
/// (`first(where:)`), it scans the library, skips what is backed up, keeps up to eight photos
/// read ahead (`buffer(size:prefetch:whenFull:)`, reading on the disk queue with
/// `subscribe(on:)`), and hands them to the ``UploadWorker`` on the upload queue. The bytes
/// uploaded add up with `scan` into the status bar.
///
/// Correct here: the reachability token is stored, the scan reads on the disk queue, so the
/// buffer is only ever called there, and ``stop()`` cancels the worker. The bug is the
/// worker's (see ``UploadWorker``).
final class BackupService {
    let worker: UploadWorker
    private var cancellables = Set<AnyCancellable>()

    init(server: PhotoServer, queues: BackupQueues) {
        let worker = UploadWorker(server: server)
        self.worker = worker
        server.reachable
            .first { $0 }
            .receive(on: queues.upload, options: queues.schedulerOptions)
            .sink { _ in
                server.scanLibrary()
                    .filter { !$0.isBackedUp }
                    .handleEvents(receiveOutput: { photo in server.activity.scans.send("found \(photo)") })
                    .buffer(size: 8, prefetch: .keepFull, whenFull: .dropNewest)
                    .subscribe(on: queues.disk, options: queues.schedulerOptions)
                    .receive(on: queues.upload, options: queues.schedulerOptions)
                    .subscribe(worker)
            }
            .store(in: &cancellables)
    }

    /// Stops the backup, as the app does when it quits.
    func stop() {
        cancellables.removeAll()
        worker.cancel()
    }
}
