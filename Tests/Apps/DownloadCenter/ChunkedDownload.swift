import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Downloads a large file as chunks fetched in parallel, spread over the server connections,
/// and publishes each chunk as it arrives; finishes once every chunk has been delivered.
///
/// **The app's one bug is here.** ``ChunkFetch/deliver(_:)`` calls the subscriber straight
/// from the connection that fetched the chunk, while other connections are calling it too: the
/// subscriber is called on several threads at once, which Combine forbids (calls to a
/// subscriber must be serialized). ``ChunkWriter`` counts the chunks it wrote without a lock,
/// so the count can lose an update and a complete file fail its check. The fix is to deliver
/// from one serial queue, or under a lock held across `receive(_:)`: in
/// ``ChunkFetch/request(_:)``, have the fetched chunk's callback hop to a serial queue of the
/// fetch's own before it calls `deliver(_:)`.
///
/// Everything else here is correct: it fetches only as many chunks as asked for, sends nothing
/// once cancelled except a chunk a connection already had in hand, and sends its completion only
/// after every delivery has returned.
struct ChunkedDownload: Publisher {
    typealias Output = Chunk
    typealias Failure = Never

    let file: FileEntry
    let server: MirrorServer

    func receive<S: Subscriber>(subscriber: S) where S.Input == Chunk, S.Failure == Never {
        subscriber.receive(subscription: ChunkFetch(file: file, server: server, downstream: subscriber))
    }
}

/// One download of a large file.
final class ChunkFetch<Downstream: Subscriber>: Subscription, @unchecked Sendable
where Downstream.Input == Chunk, Downstream.Failure == Never {
    private let lock = NSLock()
    private let file: FileEntry
    private let server: MirrorServer
    private var downstream: Downstream?
    private var unfetched: ArraySlice<Int>
    private var inFlight = 0

    init(file: FileEntry, server: MirrorServer, downstream: Downstream) {
        self.file = file
        self.server = server
        self.downstream = downstream
        unfetched = Array(0..<file.chunkCount)[...]
    }

    func request(_ demand: Subscribers.Demand) {
        lock.lock()
        let count = downstream == nil ? 0 : min(demand.max ?? unfetched.count, unfetched.count)
        let batch = unfetched.prefix(count)
        unfetched.removeFirst(count)
        inFlight += count
        lock.unlock()
        for index in batch {
            server.fetchChunk(index, of: file) { chunk in self.deliver(chunk) }
        }
    }

    func cancel() {
        lock.lock()
        downstream = nil
        unfetched = []
        lock.unlock()
    }

    /// Sends a chunk a connection fetched, on that connection's queue.
    private func deliver(_ chunk: Chunk) {
        lock.lock()
        let downstream = self.downstream
        lock.unlock()
        // The bug: no serialization, so several connections are inside `receive(_:)` at once.
        let more = downstream?.receive(chunk) ?? .none
        if more > 0 { request(more) }
        lock.lock()
        inFlight -= 1
        let finished = inFlight == 0 && unfetched.isEmpty ? self.downstream : nil
        if finished != nil { self.downstream = nil }
        lock.unlock()
        finished?.receive(completion: .finished)
    }
}
