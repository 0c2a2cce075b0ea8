import LifelineLog

/// Objects that keep each other alive through strong references: a strongly connected
/// component of a snapshot's strong edges that contains a loop.
public struct RetainCycle: Hashable, Sendable {
    /// Every object of the component, ordered by id.
    public let objects: [TraceObjectID]
    /// The shortest loop of strong references through the component's most telling object (a
    /// registered root, then another user object, then an AnyCancellable or collection), from
    /// that object back to it. Put it in words with ``OwnershipGraph/words(_:)``.
    public let chain: [TraceSnapshot.Edge]

    /// The objects of ``chain``, in the loop's order, starting with the object it starts from.
    public var chainObjects: [TraceObjectID] {
        chain.map(\.from)
    }
}
