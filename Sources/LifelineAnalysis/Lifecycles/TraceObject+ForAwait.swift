import LifelineLog

extension TraceObject {
    /// Whether the object is the subscriber of a `for await` loop over a publisher: the inner
    /// subscriber of an `AsyncPublisher`'s or `AsyncThrowingPublisher`'s iterator, which asks
    /// for one value each time the loop calls `next()`.
    var isForAwaitSubscriber: Bool {
        let iterators = ["AsyncPublisher<", "AsyncThrowingPublisher<"].flatMap { ["OpenCombine.\($0)", "Combine.\($0)"] }
        return iterators.contains(where: typeName.hasPrefix) && typeName.contains(">.Iterator.")
    }
}
