import AppMutations
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A download center written the way real apps are, the fifth app Lifeline is tried on, and the
/// first with a publisher that calls its subscriber from several threads: a large file is
/// fetched as chunks in parallel on three connection queues and written by a hand-written subscriber
/// on a disk queue, while small files go through `flatMap(maxPublishers: .max(2))` into
/// `Deferred` `Future`s, live progress rows arrive through `receive(on:)` and are cancelled
/// from another thread, the catalog is read with `subscribe(on:)`, mirrors are raced with
/// `delay` and `timeout`, manifests come through `retry`, a bandwidth feed is multicast with
/// `multicast(subject:)` and `connect()` to `assign(to:on:)` and an `AnySubscriber`, a `Record`
/// replays through `autoconnect()`, and a `CurrentValueSubject` replays to a late subscriber,
/// across six queues.
///
/// It has exactly one bug, documented where it is written: ``ChunkedDownload`` delivers each
/// chunk from the connection that fetched it, so ``ChunkWriter`` is called on several threads at
/// once (`concurrent-delivery`).
///
/// Everything else is correct, including what looks wrong: a row's progress may land once
/// after the user cancelled it from the app's thread; the server reports progress into a
/// subject it already finished; the session `Future` resolved before anyone subscribed;
/// `retry` subscribes the manifest three times; a mirror times out; the warm-up sampler
/// returns `.none` and cancels after three samples; a details sheet closed before its
/// manifest arrived cancels it by releasing its subscriptions.
public final class DownloadCenterApp: @unchecked Sendable {
    private let queues = DownloadQueues()
    private let server: MirrorServer
    private let status: StatusBar
    private var transfers: TransferListModel?
    private var details: [String: FileDetailsModel] = [:]
    private var subscriptions = Set<AnyCancellable>()

    /// Builds the app's server and screens and subscribes their pipelines.
    ///
    /// - Parameter mutation: a slip to seed into the app (none by default): a dropped
    ///   token for the large file's result. The other kinds change nothing: the screens' pipelines
    ///   all finish and the status bar lives as long as the app, so no owner goes away while a
    ///   strong `self` could hold it; its hand-written subscriber and sampler ask for what they
    ///   need; its `flatMap`s run over finite sequences; and the rows it releases it releases on
    ///   purpose.
    public init(mutation: AppMutation = .none) {
        server = MirrorServer(queues: queues)
        status = StatusBar(server: server, queues: queues)
        transfers = TransferListModel(server: server, queues: queues, mutation: mutation)
    }

    /// Runs about a quarter of a second of the app: the catalog loads and every file starts
    /// downloading, the user watches two rows and stops watching one, opens the details of two
    /// files and closes one at once, closes the large file's details once they show progress,
    /// and opens the settings.
    /// Returns once every queue is quiet.
    ///
    /// - Returns: `false` if the app's queues did not go quiet within ten seconds.
    @discardableResult
    public func run() -> Bool {
        guard let transfers else { return false }
        server.catalog()
            .sink { [weak transfers] files in transfers?.start(files) }
            .store(in: &subscriptions)
        let files = server.files
        transfers.watch(files[0])
        transfers.watch(files[1])
        for file in files.suffix(2) {
            details[file.name] = FileDetailsModel(file: file, server: server, queues: queues)
        }
        pause(0.003)
        details[files[3].name] = nil
        pause(0.005)
        transfers.stopWatching(files[0].name)
        // The user closes the large file's details once they show some progress. The tap arrives
        // on the UI queue, where the details were subscribed: OpenCombine's
        // `prefix(untilOutputFrom:)` subscribes to its trigger first, so a tap sent from another
        // thread while the details are still being subscribed would end them before they had
        // their subscription.
        let deadline = Date(timeIntervalSinceNow: 2)
        while queues.ui.sync(execute: { transfers.largeProgress == 0 }), Date() < deadline { pause(0.005) }
        queues.run(on: queues.ui, after: .milliseconds(0)) { transfers.detailsClosed.send() }
        status.parallelLimit.send(3)
        pause(0.2)
        status.openSettings()
        return queues.drain()
    }

    /// What the app shows once it is quiet: the files downloaded, the large file's result,
    /// the bytes counted and the manifests received.
    public var summary: Summary {
        queues.ui.sync {
            Summary(
                downloaded: transfers?.downloaded.sorted() ?? [], largeBytes: transfers?.largeFile?.bytes,
                totalBytes: status.display.totalBytes, manifests: details.values.compactMap { $0.manifest?.name }.sorted()
            )
        }
    }

    /// What the app shows once it is quiet.
    public struct Summary: Sendable {
        /// The small files downloaded, by name.
        public let downloaded: [String]
        /// The large file's bytes on disk, once its download finished.
        public let largeBytes: Int?
        /// The bytes the status bar counted.
        public let totalBytes: Int
        /// The files whose manifest an open details sheet shows.
        public let manifests: [String]
    }

    /// Lets the screens go, as the app does when the user leaves them; the status bar stays.
    public func tearDown() {
        transfers = nil
        details = [:]
        subscriptions = []
    }

    /// Lets the queues work for `seconds`.
    private func pause(_ seconds: TimeInterval) {
        Thread.sleep(forTimeInterval: seconds)
    }
}
