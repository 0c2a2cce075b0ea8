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
    private let progressLock = NSLock()
    private var progressSubjects: [String: PassthroughSubject<Double, Never>] = [:]
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

    /// The mirrors that answer within 20 ms, fastest first; the others time out. The probes are
    /// made and subscribed on the network queue, where they answer (see ``manifest(for:)``).
    func reachableMirrors() -> AnyPublisher<[String], Never> {
        latencies.keys.sorted().publisher
            .flatMap { [self] mirror in
                probe(mirror).timeout(.milliseconds(20), scheduler: queues.network, options: queues.schedulerOptions)
            }
            .collect()
            .subscribe(on: queues.network, options: queues.schedulerOptions)
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

    /// Downloads a small file in one piece, requested on the network queue where it answers (see
    /// ``manifest(for:)``), and reports its name once it is on disk.
    func fetch(_ file: FileEntry) -> AnyPublisher<String, Never> {
        Deferred { [queues, bandwidth] in
            Future<String, Never> { promise in
                queues.run(on: queues.network, after: .milliseconds(2 + file.size / 1_000)) {
                    bandwidth.send(file.size)
                    promise(.success(file.name))
                }
            }
        }
        .subscribe(on: queues.network, options: queues.schedulerOptions)
        .eraseToAnyPublisher()
    }

    /// Fetches one chunk of a large file on one of the connections, then calls `done` on that
    /// connection's queue.
    func fetchChunk(_ index: Int, of file: FileEntry, done: @escaping @Sendable (Chunk) -> Void) {
        let connection = queues.connections[index % queues.connections.count]
        queues.run(on: connection, after: .milliseconds(3)) {
            done(Chunk(index: index, bytes: min(FileEntry.chunkSize, file.size - index * FileEntry.chunkSize)))
        }
    }

    /// A file's progress as the server reports it, from 0 to 1, on the network queue, once
    /// ``reportProgress(of:)`` starts the reports.
    func progressUpdates(of file: FileEntry) -> AnyPublisher<Double, Never> {
        progressSubject(of: file).eraseToAnyPublisher()
    }

    /// Starts reporting a file's progress, every four milliseconds. The server's last report,
    /// sent after it said the file was done, is dropped by the subject, as the server's
    /// protocol allows.
    func reportProgress(of file: FileEntry) {
        let progress = progressSubject(of: file)
        for tick in 1...40 {
            queues.run(on: queues.network, after: .milliseconds(4 * tick)) {
                progress.send(Double(tick) / 40)
                if tick == 40 {
                    progress.send(completion: .finished)
                    progress.send(1)
                }
            }
        }
    }

    /// The subject a file's progress is reported into.
    private func progressSubject(of file: FileEntry) -> PassthroughSubject<Double, Never> {
        progressLock.lock()
        defer { progressLock.unlock() }
        if let progress = progressSubjects[file.name] { return progress }
        let progress = PassthroughSubject<Double, Never>()
        progressSubjects[file.name] = progress
        return progress
    }

    /// A file's manifest: the server is busy the first two times it is asked for a file's
    /// manifest, and answers the third. Each request is made and subscribed on the network
    /// queue, where its answer comes: OpenCombine's `Future` hands its subscriber the
    /// subscription only after adding it to those it will answer, so an answer on another
    /// thread could arrive before the subscription.
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
        .subscribe(on: queues.network, options: queues.schedulerOptions)
        .retry(3)
        .eraseToAnyPublisher()
    }
}
