import AppMutations
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The downloads screen: small files downloaded two at a time, the large file written chunk by
/// chunk with its progress shown until the user closes its details, and live progress rows the
/// user can stop watching.
///
/// Correct: `flatMap(maxPublishers: .max(2))` holds the third file back until one of the first
/// two is done, on purpose; every sink captures `self` weakly; the rows' progress
/// is delivered on the UI queue while the user cancels a row from the app's thread, so a
/// report already on its way may still land.
final class TransferListModel: @unchecked Sendable {
    private let server: MirrorServer
    private let queues: DownloadQueues
    /// Sent when the user closes the large file's details.
    let detailsClosed = PassthroughSubject<Void, Never>()
    private(set) var downloaded: [String] = []
    private(set) var largeProgress = 0.0
    private(set) var largeFile: (complete: Bool, bytes: Int)?
    private(set) var rowProgress: [String: Double] = [:]
    private var writer: ChunkWriter?
    private var rows: [String: AnyCancellable] = [:]
    private var subscriptions = Set<AnyCancellable>()

    private let mutation: AppMutation

    init(server: MirrorServer, queues: DownloadQueues, mutation: AppMutation = .none) {
        self.server = server
        self.queues = queues
        self.mutation = mutation
    }

    /// Queues the small files and starts the large one, on the UI queue.
    func start(_ files: [FileEntry]) {
        files.filter { !$0.isLarge }.publisher
            .flatMap(maxPublishers: .max(2)) { [server] file in server.fetch(file) }
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] name in self?.downloaded.append(name) }
            .store(in: &subscriptions)
        guard let large = files.first(where: \.isLarge) else { return }
        let writer = ChunkWriter(file: large, queues: queues)
        self.writer = writer
        writer.progress
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .prefix(untilOutputFrom: detailsClosed)
            .sink { [weak self] share in self?.largeProgress = share }
            .store(in: &subscriptions)
        let written = writer.written.receive(on: queues.ui, options: queues.schedulerOptions)
        if mutation != .droppedStore {
            written
                .sink { [weak self] result in self?.largeFile = result }
                .store(in: &subscriptions)
        } else {
            _ = written.sink { [weak self] result in self?.largeFile = result } // seeded: dropped-store
        }
        ChunkedDownload(file: large, server: server).subscribe(writer)
    }

    /// Shows a row with the server's live progress for `file`, and asks the server for it once
    /// the row is subscribed: OpenCombine's subjects hand a subscriber its subscription outside
    /// their lock, so a report sent on the network queue meanwhile could reach the row while it
    /// is still being subscribed.
    func watch(_ file: FileEntry) {
        rows[file.name] = server.progressUpdates(of: file)
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] share in self?.rowProgress[file.name] = share }
        server.reportProgress(of: file)
    }

    /// Stops showing a row's progress; called on the app's thread while reports are arriving
    /// on the UI queue.
    func stopWatching(_ name: String) {
        rows[name]?.cancel()
        rows[name] = nil
    }
}
