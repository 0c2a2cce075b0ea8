import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Reads the photo library from disk on the disk queue, one photo per read, and finishes after
/// the last one.
///
/// Correct: each subscription reads only what was asked for (a request made while nothing is
/// wanted starts the reading again), is thread-safe (a lock guards the demand, and one read at
/// a time runs on the serial disk queue), reads nothing before the subscriber's
/// `receive(subscription:)` has returned (so no photo arrives on the disk queue while the
/// subscriber is still being subscribed on another thread), sends nothing once cancelled
/// except a photo already on its way, and finishes even when no demand is left.
struct LibraryScanPublisher: Publisher {
    typealias Output = Photo
    typealias Failure = Never

    let photos: [Photo]
    let queues: BackupQueues

    func receive<S: Subscriber>(subscriber: S) where S.Input == Photo, S.Failure == Never {
        let scan = LibraryScan(photos: photos, queues: queues, downstream: subscriber)
        subscriber.receive(subscription: scan)
        scan.start()
    }
}

/// One reading of the library.
final class LibraryScan<Downstream: Subscriber>: Subscription, @unchecked Sendable
where Downstream.Input == Photo, Downstream.Failure == Never {
    private let lock = NSLock()
    private let queues: BackupQueues
    private var downstream: Downstream?
    private var unread: ArraySlice<Photo>
    private var demand = Subscribers.Demand.none
    /// Whether a read is scheduled or running on the disk queue, or the subscriber is still
    /// being subscribed.
    private var reading = true

    init(photos: [Photo], queues: BackupQueues, downstream: Downstream) {
        self.queues = queues
        self.downstream = downstream
        unread = photos[...]
    }

    /// Starts reading, once the subscriber has its subscription.
    func start() {
        scheduleRead()
    }

    func request(_ demand: Subscribers.Demand) {
        lock.lock()
        self.demand += demand
        let startsReading = !reading && downstream != nil
        reading = reading || startsReading
        lock.unlock()
        if startsReading { scheduleRead() }
    }

    func cancel() {
        lock.lock()
        downstream = nil
        unread = []
        lock.unlock()
    }

    private func scheduleRead() {
        queues.run(on: queues.disk, after: .milliseconds(1)) { self.read() }
    }

    /// Reads the next photo and sends it, or finishes; stops while nothing is asked for.
    private func read() {
        lock.lock()
        guard let downstream else {
            reading = false
            lock.unlock()
            return
        }
        guard let photo = unread.first else {
            self.downstream = nil
            reading = false
            lock.unlock()
            downstream.receive(completion: .finished)
            return
        }
        guard demand > 0 else {
            reading = false
            lock.unlock()
            return
        }
        unread.removeFirst()
        demand -= 1
        lock.unlock()

        let more = downstream.receive(photo)
        lock.lock()
        demand += more
        lock.unlock()
        scheduleRead()
    }
}
