import AppMutations
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The gallery screen: the chosen album's thumbnails in pages of four (`collect(4)`), two
/// rendering at a time (`flatMap(maxPublishers: .max(2))`); choosing another album drops the
/// one still loading (`switchToLatest()`). A "recent" strip shows the first three photos the
/// scanner reads (`prefix(3)`, which cancels the scan).
///
/// Correct: every token is stored, every sink holds `self` weakly, and ``close()`` cancels the
/// thumbnails still rendering; a page already on its way to the UI queue may still arrive.
final class GalleryModel {
    let album = CurrentValueSubject<String, Never>("camera")
    private(set) var pages: [[Thumbnail]] = []
    private(set) var recent: [Int] = []
    /// Whether an album is loading, for the screen's spinner (under `lock`: loads start and
    /// stop on several queues).
    private var loading = false
    private let lock = NSLock()
    private var cancellables = Set<AnyCancellable>()

    init(server: PhotoServer, queues: BackupQueues, mutation: AppMutation = .none) {
        album
            .removeDuplicates()
            .map { album in
                server.photos(in: album)
                    .flatMap(maxPublishers: .max(2)) { photo in server.thumbnail(for: photo) }
                    .collect(4)
                    .handleEvents(
                        receiveSubscription: { [weak self] _ in self?.setLoading(true) },
                        receiveCompletion: { [weak self] _ in self?.setLoading(false) },
                        receiveCancel: { [weak self] in self?.setLoading(false) }
                    )
            }
            .switchToLatest()
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] page in self?.pages.append(page) }
            .store(in: &cancellables)

        let recent = server.scanLibrary()
            .prefix(3)
            .map(\.id)
            .collect()
            .receive(on: queues.ui, options: queues.schedulerOptions)
        if mutation != .droppedStore {
            recent
                .sink { [weak self] ids in self?.recent = ids }
                .store(in: &cancellables)
        } else {
            _ = recent.sink { [weak self] ids in self?.recent = ids } // seeded: dropped-store
        }
    }

    /// Whether an album is loading.
    var isLoading: Bool {
        lock.lock()
        defer { lock.unlock() }
        return loading
    }

    private func setLoading(_ loading: Bool) {
        lock.lock()
        defer { lock.unlock() }
        self.loading = loading
    }

    /// Closes the screen: the thumbnails still rendering are cancelled.
    func close() {
        cancellables.removeAll()
    }
}
