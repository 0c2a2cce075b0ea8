import AppMutations
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A photo backup app written the way real apps are, the fourth app Lifeline is tried on, and
/// the first with real back pressure: a hand-written publisher reads the library from disk only
/// as fast as it is asked to, a `buffer(size:prefetch:whenFull:)` reads ahead, and a
/// hand-written subscriber uploads one photo at a time, asking for the next from the network
/// queue when the server answers. Around it: thumbnails through `flatMap(maxPublishers: .max(2))`,
/// `collect(4)` and `switchToLatest()`, uploads through `Just`, `Fail` and `delay`, videos through
/// `Empty`, `first(where:)` and `prefix(3)`, `scan` into a status bar, an activity log merged from
/// three queues and serialized with `receive(on:)` into a subscriber that pauses its demand and
/// resumes it on a `Timer.publish`, across six queues and a timer thread.
///
/// It has exactly one bug, documented where it is written: ``UploadWorker`` asks for no more
/// photos after the server refuses one (photo #5, too large), so the backup stalls with seven
/// photos read ahead and held in the buffer (`demand-stalled`). The backup lives as long as the
/// app, so the stalled pipeline is still open when a recording of the app's first moments stops.
///
/// Everything else is correct, including what looks wrong: the activity feed returns `.none`
/// and waits for the next tick on purpose, `prefix(3)` and `switchToLatest()` cancel work on
/// purpose, and closing the gallery cancels thumbnails still rendering, one of which may
/// still reach the UI queue.
public final class PhotoBackupApp: @unchecked Sendable {
    private let queues = BackupQueues()
    private let activity = ActivityLog()
    private let server: PhotoServer
    private let backup: BackupService
    private var gallery: GalleryModel?
    private var activityScreen: ActivityModel?
    private var status: StatusModel?

    /// Builds the app's service and screens and subscribes their pipelines.
    ///
    /// - Parameter mutation: a slip to seed into the app (none by default): a dropped token for
    ///   the gallery's strip of recent photos. The other kinds change nothing: the screens
    ///   cancel their pipelines when they close and the backup lives as long as the app, so no
    ///   owner goes away while a strong `self` could hold it; its hand-written subscribers
    ///   already stall (the backup's documented bug) or pause on purpose; its `flatMap`s run over
    ///   finite publishers; and the tokens it releases it releases on purpose.
    public init(mutation: AppMutation = .none) {
        server = PhotoServer(queues: queues, activity: activity)
        backup = BackupService(server: server, queues: queues)
        status = StatusModel(worker: backup.worker, server: server, queues: queues)
        gallery = GalleryModel(server: server, queues: queues, mutation: mutation)
        activityScreen = ActivityModel(activity: activity, queues: queues)
    }

    /// Runs about a quarter of a second of the app: the server comes online and the backup
    /// starts, the user flips between albums in the gallery, the activity log catches up and
    /// ends, and the screens close. Returns once every queue is quiet.
    ///
    /// - Returns: `false` if the app's queues did not go quiet within ten seconds.
    @discardableResult
    public func run() -> Bool {
        guard let gallery, let activityScreen, let status else { return false }
        server.comeOnline(after: .milliseconds(5))
        pause(0.006)
        gallery.album.send("trips")
        pause(0.05)
        gallery.album.send("camera")
        pause(0.006)
        gallery.close()
        pause(0.05)
        activity.finish()
        let deadline = Date(timeIntervalSinceNow: 2)
        while !activityScreen.feed.isFinished, Date() < deadline { pause(0.01) }
        activityScreen.close()
        status.close()
        return queues.drain()
    }

    /// The photos uploaded, and those the server refused, so far.
    public var backupProgress: (uploaded: [Int], refused: [Int]) {
        queues.upload.sync {}
        return queues.network.sync { (backup.worker.uploaded, backup.worker.refused) }
    }

    /// Lets the screens go, as the app does when the user leaves them; the backup goes on.
    public func tearDown() {
        gallery = nil
        activityScreen = nil
        status = nil
    }

    /// Stops the backup and the timer thread, as the app does when it quits.
    public func quit() {
        backup.stop()
        queues.stop()
    }

    /// Lets the queues work for `seconds`, then catch up.
    private func pause(_ seconds: TimeInterval) {
        Thread.sleep(forTimeInterval: seconds)
        for queue in [queues.disk, queues.network, queues.thumbnails, queues.activity, queues.upload, queues.ui] {
            queue.sync {}
        }
    }
}
