import LifelineLog

/// One link of a pipeline: a subscriber, the publisher it was subscribed to, and the
/// subscription that publisher handed it.
public struct Hop: Hashable, Sendable {
    /// The publisher `subscribe(_:)` was called on, or `nil` when the log shows no subscribe
    /// call for this hop.
    public let publisher: TraceObjectID?
    /// The subscription handed to the subscriber, or `nil` while it is still awaited.
    public let subscription: TraceObjectID?
    /// The subscriber.
    public let subscriber: TraceObjectID

    /// Creates a hop.
    public init(publisher: TraceObjectID?, subscription: TraceObjectID?, subscriber: TraceObjectID) {
        self.publisher = publisher
        self.subscription = subscription
        self.subscriber = subscriber
    }
}
