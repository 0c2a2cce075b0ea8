import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A file's details sheet: its manifest, which the server gives only on the third try, and the
/// session the request is signed with.
///
/// Correct: `retry(3)` subscribes to the manifest again after each refusal, the session is a
/// `Future` that resolved before the sheet existed and replays its value, and a sheet closed
/// before its manifest arrived cancels the request by releasing its subscriptions.
final class FileDetailsModel: @unchecked Sendable {
    private(set) var manifest: Manifest?
    private(set) var signature: String?
    private(set) var failed = false
    private var subscriptions = Set<AnyCancellable>()

    init(file: FileEntry, server: MirrorServer, queues: DownloadQueues) {
        server.session
            .map { "Bearer \($0)" }
            .sink { [weak self] signature in self?.signature = signature }
            .store(in: &subscriptions)
        server.manifest(for: file)
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] completion in
                if case .failure = completion { self?.failed = true }
            } receiveValue: { [weak self] manifest in
                self?.manifest = manifest
            }
            .store(in: &subscriptions)
    }
}
