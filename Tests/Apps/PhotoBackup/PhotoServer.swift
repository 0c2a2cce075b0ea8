import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A simulated backup server and photo library. Uploads answer on the network queue after a
/// short delay; a photo over the size limit is refused. Thumbnails render on the thumbnails
/// queue, or come from the cache.
final class PhotoServer: @unchecked Sendable {
    /// The largest upload the server accepts, in bytes.
    static let uploadLimit = 25_000_000

    private let queues: BackupQueues
    let activity: ActivityLog
    /// Whether the server can be reached; it comes online shortly after launch.
    let reachable = CurrentValueSubject<Bool, Never>(false)

    /// The library: twelve photos in two albums. Photo #2 was backed up last time, #6 is a
    /// video, and #5 is too large for the server.
    let library: [Photo] = (1...12).map { id in
        Photo(id: id, album: id <= 7 ? "camera" : "trips", bytes: id == 5 ? 40_000_000 : 2_000_000 + id * 1_000,
              isVideo: id == 6, isBackedUp: id == 2)
    }
    private let cachedThumbnails: Set<Int> = [1, 9]

    init(queues: BackupQueues, activity: ActivityLog) {
        self.queues = queues
        self.activity = activity
    }

    /// Reads the whole library from disk, one photo at a time.
    func scanLibrary() -> LibraryScanPublisher {
        LibraryScanPublisher(photos: library, queues: queues)
    }

    /// The photos of `album`, already in memory.
    func photos(in album: String) -> Publishers.Sequence<[Photo], Never> {
        library.filter { $0.album == album }.publisher
    }

    /// Uploads `photo`: the receipt after a few milliseconds, or `tooLarge` if it is over the
    /// limit.
    func upload(_ photo: Photo) -> AnyPublisher<Receipt, UploadError> {
        guard photo.bytes <= Self.uploadLimit else {
            return Fail(error: UploadError.tooLarge(photo: photo.id))
                .delay(for: .milliseconds(2), scheduler: queues.network, options: queues.schedulerOptions)
                .eraseToAnyPublisher()
        }
        return Just(Receipt(photo: photo.id, bytes: photo.bytes))
            .setFailureType(to: UploadError.self)
            .delay(for: .milliseconds(3), scheduler: queues.network, options: queues.schedulerOptions)
            .handleEvents(receiveOutput: { [activity] receipt in activity.uploads.send("uploaded #\(receipt.photo)") })
            .eraseToAnyPublisher()
    }

    /// The thumbnail of `photo`: none for a video, the cached one, or one rendered on the
    /// thumbnails queue.
    func thumbnail(for photo: Photo) -> AnyPublisher<Thumbnail, Never> {
        if photo.isVideo { return Empty().eraseToAnyPublisher() }
        if cachedThumbnails.contains(photo.id) { return Just(Thumbnail(photo: photo.id, cached: true)).eraseToAnyPublisher() }
        return Deferred { [queues, activity] in
            Future<Thumbnail, Never> { promise in
                queues.run(on: queues.thumbnails, after: .milliseconds(4)) {
                    activity.thumbnails.send("rendered #\(photo.id)")
                    promise(.success(Thumbnail(photo: photo.id, cached: false)))
                }
            }
        }
        .eraseToAnyPublisher()
    }

    /// The server comes online after `delay`.
    func comeOnline(after delay: DispatchTimeInterval) {
        queues.run(on: queues.network, after: delay) { self.reachable.send(true) }
    }
}
