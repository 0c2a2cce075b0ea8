import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `URLSession` that needs no network: its requests load `data:` URLs, and every completion
/// handler runs on one labeled serial queue, `lifeline.samples.network`.
///
/// The URL stories hold that queue while they subscribe and release it afterwards, so a response
/// can never reach a subscription before the handshake on the calling thread is over. Each data
/// task counts as the queue's pending work until its completion handler has returned, which is
/// what `delivery.releaseAndWait()` waits for.
final class OfflineNetwork: Sendable {
    /// The queue that runs every completion handler.
    let delivery = SampleQueue(label: "lifeline.samples.network")
    private let session: URLSession

    /// Creates a session whose delegate queue runs on ``delivery``.
    init() {
        let operations = OperationQueue()
        operations.underlyingQueue = delivery.queue
        operations.maxConcurrentOperationCount = 1
        session = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: operations)
    }

    /// Makes a data task for `request`; call `resume()` on it to start it.
    ///
    /// - Parameters:
    ///   - request: The request, normally for a `data:` URL.
    ///   - completionHandler: Runs once on ``delivery`` with the task's data, response and error.
    func dataTask(
        with request: URLRequest,
        completionHandler: @escaping (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDataTask {
        // The handler runs only on the serial delivery queue, which the stories hold while their
        // calling thread touches the same objects, so it never runs concurrently with them.
        nonisolated(unsafe) let handler = completionHandler
        let pendingWork = delivery.pendingWork
        pendingWork.enter()
        return session.dataTask(with: request) { data, response, error in
            handler(data, response, error)
            pendingWork.leave()
        }
    }

    /// Lets the session finish and release its resources.
    func invalidate() {
        session.finishTasksAndInvalidate()
    }
}
