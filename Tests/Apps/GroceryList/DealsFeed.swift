import Foundation
import Lifeline
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Bridges the server's deals into an `AsyncStream`, the way code that wants `for await` but
/// holds a `PassthroughSubject` does: a `sink` yields each deal into the stream, and the
/// stream's `onTermination` cancels the sink when the loop that reads it ends or its task is
/// cancelled. Correct: the token lives exactly as long as the stream.
struct DealsFeed: Sendable {
    let server: GroceryServer

    /// The deals on items of `wanted`, from now on.
    func deals(on wanted: @escaping @Sendable (String) -> Bool) -> AsyncStream<Deal> {
        AsyncStream { continuation in
            let subscription = server.deals
                .filter { wanted($0.name) }
                .lifeline("deals")
                .sink { continuation.yield($0) }
            continuation.onTermination = { _ in subscription.cancel() }
        }
    }
}
