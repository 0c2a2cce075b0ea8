import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A hand-written subscriber that checks a large file's chunks as they arrive and writes them
/// to disk on the serial disk queue, and publishes the share written so far.
///
/// Correct as a subscriber: it asks for every chunk at once, keeps its subscription until the
/// download finishes or it cancels it, and publishes progress from inside the disk queue, so
/// the progress subject is never sent to from two threads at once. It trusts its publisher to
/// call it from one thread at a time, as Combine promises, and so counts the chunks it wrote
/// without a lock: ``ChunkedDownload`` breaks that promise (the app's bug).
final class ChunkWriter: Subscriber {
    typealias Input = Chunk
    typealias Failure = Never

    let file: FileEntry
    private let queues: DownloadQueues
    private var subscription: Subscription?
    private var bytesOnDisk = 0
    private var chunksWritten = 0
    /// The share of the file on disk, from 0 to 1; sent on whichever thread wrote the chunk,
    /// one at a time.
    let progress = CurrentValueSubject<Double, Never>(0)
    /// Whether the file was written in full, and its bytes on disk; sent once, when the
    /// download finishes.
    let written = PassthroughSubject<(complete: Bool, bytes: Int), Never>()

    init(file: FileEntry, queues: DownloadQueues) {
        self.file = file
        self.queues = queues
    }

    func receive(subscription: Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
    }

    func receive(_ chunk: Chunk) -> Subscribers.Demand {
        let checksum = Self.checksum(of: chunk)
        queues.disk.sync {
            Thread.sleep(forTimeInterval: 0.0005)
            bytesOnDisk += checksum == chunk.index ? chunk.bytes : 0
            progress.send(Double(bytesOnDisk) / Double(file.size))
        }
        chunksWritten += 1
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        subscription = nil
        let bytes = queues.disk.sync { bytesOnDisk }
        written.send((complete: chunksWritten == file.chunkCount, bytes: bytes))
        written.send(completion: .finished)
    }

    /// Checks a chunk against the server's checksum; takes two milliseconds.
    private static func checksum(of chunk: Chunk) -> Int {
        Thread.sleep(forTimeInterval: 0.002)
        return chunk.index
    }

    /// Stops the download.
    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}
