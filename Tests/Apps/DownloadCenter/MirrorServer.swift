import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A simulated download server on the network queue: a catalog, mirrors that answer at
/// different speeds, small files in one piece, large files chunk by chunk, live progress, and
/// manifests that the server is too busy to give on the first tries.
final class MirrorServer: @unchecked Sendable {
    private let queues: DownloadQueues
    /// Every file the server offers.
    let files = [
        FileEntry(name: "notes.pdf", size: 1_200), FileEntry(name: "song.mp3", size: 3_000),
        FileEntry(name: "photo.raw", size: 2_500), FileEntry(name: "podcast.m4a", size: 3_800),
        FileEntry(name: "ubuntu.iso", size: 6_000),
    ]
    /// How long each mirror takes to answer, in milliseconds.
    private let latencies = ["eu": 3, "us": 6, "ap": 60]
    /// The bytes of every transfer, as they arrive, on the network queue.
    let bandwidth = PassthroughSubject<Int, Never>()
    /// The session, signed in when the app starts: resolved at once, long before anyone
    /// subscribes to it, as a `Future` made eagerly is.
    let session = Future<String, Never> { promise in promise(.success("session-42")) }
    /// How many times each manifest was asked for, on the network queue.
    private var manifestAttempts: [String: Int] = [:]

    init(queues: DownloadQueues) {
        self.queues = queues
    }

    /// The catalog, read on the network queue and delivered on the UI queue.
    func catalog() -> AnyPublisher<[FileEntry], Never> {
        Deferred { [files] in Just(files) }
            .subscribe(on: queues.network, options: queues.schedulerOptions)
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .eraseToAnyPublisher()
    }

    /// The mirrors that answer within 20 ms, fastest first; the others time out.
    func reachableMirrors() -> AnyPublisher<[String], Never> {
        latencies.keys.sorted().publisher
            .flatMap { [self] mirror in
                probe(mirror).timeout(.milliseconds(20), scheduler: queues.network, options: queues.schedulerOptions)
            }
            .collect()
            .eraseToAnyPublisher()
    }

    /// Asks a mirror whether it is there; it answers after its latency.
    private func probe(_ mirror: String) -> AnyPublisher<String, Never> {
        Deferred { [queues, latencies] in
            Future<String, Never> { promise in
                queues.run(on: queues.network, after: .milliseconds(latencies[mirror] ?? 0)) { promise(.success(mirror)) }
            }
        }
        .eraseToAnyPublisher()
    }

    /// Downloads a small file in one piece and reports its name once it is on disk.
    func fetch(_ file: FileEntry) -> AnyPublisher<String, Never> {
        Deferred { [queues, bandwidth] in
            Future<String, Never> { promise in
                queues.run(on: queues.network, after: .milliseconds(2 + file.size / 1_000)) {
                    bandwidth.send(file.size)
                    promise(.success(file.name))
                }
            }
        }
        .eraseToAnyPublisher()
    }

    /// Fetches one chunk of a large file on a worker of the chunks queue, then calls `done`
    /// on that worker.
    func fetchChunk(_ index: Int, of file: FileEntry, done: @escaping @Sendable (Chunk) -> Void) {
        queues.run(on: queues.chunks, after: .milliseconds(3)) {
            done(Chunk(index: index, bytes: min(FileEntry.chunkSize, file.size - index * FileEntry.chunkSize)))
        }
    }

    /// A file's progress as the server reports it every millisecond, from 0 to 1, on the
    /// network queue. The server's last report, sent after it said the file was done, is
    /// dropped by the subject, as the server's protocol allows.
    func liveProgress(of file: FileEntry) -> AnyPublisher<Double, Never> {
        let progress = PassthroughSubject<Double, Never>()
        for tick in 1...20 {
            queues.run(on: queues.network, after: .milliseconds(tick)) {
                progress.send(Double(tick) / 20)
                if tick == 20 {
                    progress.send(completion: .finished)
                    progress.send(1)
                }
            }
        }
        return progress.eraseToAnyPublisher()
    }

    /// A file's manifest: the server is busy the first two times it is asked for a file's
    /// manifest, and answers the third.
    func manifest(for file: FileEntry) -> AnyPublisher<Manifest, ServerError> {
        Deferred { [self] in
            Future<Manifest, ServerError> { promise in
                self.queues.run(on: self.queues.network, after: .milliseconds(2)) {
                    let attempt = self.manifestAttempts[file.name, default: 0] + 1
                    self.manifestAttempts[file.name] = attempt
                    promise(attempt < 3 ? .failure(.busy) : .success(Manifest(name: file.name, checksum: "sha-\(file.size)")))
                }
            }
        }
        .retry(3)
        .eraseToAnyPublisher()
    }
}
