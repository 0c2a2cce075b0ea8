/// The part an object plays in a Combine handshake.
public enum TraceObjectRole: String, Hashable, Sendable, CaseIterable {
    /// Something that `subscribe(_:)` was called on.
    case publisher
    /// The object a publisher hands to `receive(subscription:)`.
    case subscription
    /// Something that was subscribed to a publisher.
    case subscriber
}
