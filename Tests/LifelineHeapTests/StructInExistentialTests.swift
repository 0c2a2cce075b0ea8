import OpenCombineShim
import Testing
@testable import LifelineHeap

/// A struct an existential holds is read by its own type, whether it sits in the existential's
/// inline buffer or in a box, and whether the box was made where the struct's type is known or
/// in generic code that knows it only in terms of its generic parameters: every reference the
/// struct holds is drawn, at the path of its field.
///
/// Found on Entwine's `ReferenceCountedSubscription`, whose `wrappedSubscription: Subscription`
/// holds OpenCombine's `Publishers.Autoconnect.SideEffectSubscription`: the reference to its
/// `Autoconnect` was drawn, without its field's name, and the one to the `Multicast.Inner` it
/// wraps was not.
@Suite struct StructInExistentialTests {
    final class Leaf {}
    final class Parent<Upstream> {}

    protocol Cancelling {}
    final class CancellingLeaf: Cancelling {}

    /// Two references: fits the inline buffer.
    struct Two: Cancelling {
        let first: Leaf
        let second: Leaf
    }

    /// A reference and an existential, five words: boxed.
    struct Wrapper: Cancelling {
        let parent: Leaf
        let inner: any Cancelling
    }

    /// As OpenCombine's `SideEffectSubscription`: a generic struct whose size does not depend
    /// on its parameter, boxed by generic code.
    struct SideEffect<Upstream>: Cancelling {
        let parent: Parent<Upstream>
        let inner: any Cancelling
    }

    /// A generic struct small enough for the inline buffer.
    struct GenericTwo<Upstream>: Cancelling {
        let parent: Parent<Upstream>
        let other: Leaf
    }

    /// A generic struct whose size depends on its parameter.
    struct Carrying<Value>: Cancelling {
        let value: Value
        let leaf: Leaf
    }

    /// As OpenCombine's `SubscriptionTap`: one existential wrapping another.
    struct Tap: Cancelling {
        let subscription: any Cancelling
    }

    enum State {
        case idle
        case running(Leaf, Leaf)
        case waiting(Leaf)
    }

    struct Nested {
        let leaf: Leaf
        let two: Two
    }

    /// A struct with a multi-payload enum field and a nested struct holding references.
    struct Composite: Cancelling {
        let state: State
        let nested: Nested
    }

    /// An indirect case whose payload's size does not depend on the parameter: generic code
    /// boxes it as it boxes ``SideEffect``.
    enum Link<Upstream> {
        indirect case node(Leaf, Parent<Upstream>)
        case end
    }

    static func link<Upstream>(_ leaf: Leaf, _ parent: Parent<Upstream>) -> Link<Upstream> {
        .node(leaf, parent)
    }

    static func sideEffect<Upstream>(_ parent: Parent<Upstream>, _ inner: any Cancelling) -> any Cancelling {
        SideEffect(parent: parent, inner: inner)
    }

    static func sideEffectAsAny<Upstream>(_ parent: Parent<Upstream>, _ inner: any Cancelling) -> Any {
        SideEffect(parent: parent, inner: inner)
    }

    static func genericTwo<Upstream>(_ parent: Parent<Upstream>, _ other: Leaf) -> any Cancelling {
        GenericTwo(parent: parent, other: other)
    }

    static func carrying<Value>(_ value: Value, _ leaf: Leaf) -> any Cancelling {
        Carrying(value: value, leaf: leaf)
    }

    static func tapping<Upstream>(_ parent: Parent<Upstream>, _ inner: any Cancelling) -> any Cancelling {
        Tap(subscription: sideEffect(parent, inner))
    }

    /// Holds one value in its field `wrapped`.
    final class Holder<Value> {
        var wrapped: Value
        init(_ wrapped: Value) { self.wrapped = wrapped }
    }

    /// The edges inspection finds from a holder of `value`, naming the holder "holder" and
    /// each object by its name in `objects`. (An existential passed here is opened unless it is
    /// written `as any Cancelling` or `as Any`: the holder would hold the struct itself.)
    func edges<Value>(_ value: Value, _ objects: [String: AnyObject]) -> Set<NamedEdge> {
        let holder = Holder(value)
        let root = HeapInspector.address(of: holder)
        let graph = HeapInspector().inspect(roots: [root])
        var names = [root: "holder"]
        for (name, object) in objects { names[HeapInspector.address(of: object)] = name }
        return withExtendedLifetime((holder, objects)) { graph.namedEdges(names) }
    }

    @Test func aStructInTheInlineBufferIsReadByItsFields() {
        let first = Leaf(), second = Leaf(), parent = Parent<Int>()
        let objects: [String: AnyObject] = ["first": first, "second": second, "parent": parent]
        #expect(MemoryLayout<Two>.size <= 3 * MemoryLayout<UInt>.size)
        let two: Set<NamedEdge> = [NamedEdge("holder", "wrapped.first", "first"), NamedEdge("holder", "wrapped.second", "second")]
        #expect(edges(Two(first: first, second: second) as any Cancelling, objects) == two)
        #expect(edges(Two(first: first, second: second) as Any, objects) == two)
        #expect(edges(Self.genericTwo(parent, first) as any Cancelling, objects)
            == [NamedEdge("holder", "wrapped.parent", "parent"), NamedEdge("holder", "wrapped.other", "first")])
    }

    @Test func aBoxedStructIsReadByItsFields() {
        let parent = Leaf(), inner = CancellingLeaf()
        let objects: [String: AnyObject] = ["parent": parent, "inner": inner]
        #expect(MemoryLayout<Wrapper>.size > 3 * MemoryLayout<UInt>.size)
        let expected: Set<NamedEdge> = [NamedEdge("holder", "wrapped.parent", "parent"), NamedEdge("holder", "wrapped.inner", "inner")]
        #expect(edges(Wrapper(parent: parent, inner: inner) as any Cancelling, objects) == expected)
        #expect(edges(Wrapper(parent: parent, inner: inner) as Any, objects) == expected)
    }

    @Test func aGenericStructBoxedByGenericCodeIsReadByItsFields() {
        let parent = Parent<Int>(), inner = CancellingLeaf(), leaf = Leaf()
        let objects: [String: AnyObject] = ["parent": parent, "inner": inner, "leaf": leaf]
        let expected: Set<NamedEdge> = [NamedEdge("holder", "wrapped.parent", "parent"), NamedEdge("holder", "wrapped.inner", "inner")]
        #expect(MemoryLayout<SideEffect<Int>>.size > 3 * MemoryLayout<UInt>.size)
        #expect(edges(Self.sideEffect(parent, inner) as any Cancelling, objects) == expected)
        #expect(edges(Self.sideEffectAsAny(parent, inner) as Any, objects) == expected)
        #expect(edges(Optional(Self.sideEffect(parent, inner)), objects) == expected)
        #expect(edges(Self.carrying((1, 2, 3), leaf) as any Cancelling, objects) == [NamedEdge("holder", "wrapped.leaf", "leaf")])
        #expect(edges(Self.carrying(parent, leaf) as any Cancelling, objects)
            == [NamedEdge("holder", "wrapped.value", "parent"), NamedEdge("holder", "wrapped.leaf", "leaf")])
    }

    @Test func anExistentialInABoxedStructInAnExistentialIsReadToTheEnd() {
        let parent = Parent<Int>(), inner = CancellingLeaf()
        let objects: [String: AnyObject] = ["parent": parent, "inner": inner]
        #expect(edges(Self.tapping(parent, inner) as any Cancelling, objects) == [
            NamedEdge("holder", "wrapped.subscription.parent", "parent"),
            NamedEdge("holder", "wrapped.subscription.inner", "inner"),
        ])
        // As a subscriber holds autoconnect()'s subscription under recording: each subscription
        // handed over is wrapped in a tap, each in an existential, the first in an optional.
        let recorded: (any Cancelling)? = Tap(subscription: Self.sideEffect(parent, Tap(subscription: inner)))
        #expect(edges(recorded, objects) == [
            NamedEdge("holder", "wrapped.subscription.parent", "parent"),
            NamedEdge("holder", "wrapped.subscription.inner.subscription", "inner"),
        ])
        let two = Two(first: Leaf(), second: Leaf())
        let deep = Tap(subscription: Tap(subscription: Self.sideEffect(parent, Self.sideEffect(parent, two))))
        #expect(edges(deep as any Cancelling, ["parent": parent, "first": two.first, "second": two.second]) == [
            NamedEdge("holder", "wrapped.subscription.subscription.parent", "parent"),
            NamedEdge("holder", "wrapped.subscription.subscription.inner.parent", "parent"),
            NamedEdge("holder", "wrapped.subscription.subscription.inner.inner.first", "first"),
            NamedEdge("holder", "wrapped.subscription.subscription.inner.inner.second", "second"),
        ])
    }

    @Test func aStructsEnumFieldAndNestedStructAreReadInAnExistential() {
        let first = Leaf(), second = Leaf(), third = Leaf(), fourth = Leaf(), fifth = Leaf()
        let objects: [String: AnyObject] = ["first": first, "second": second, "third": third, "fourth": fourth, "fifth": fifth]
        let composite = Composite(state: .running(first, second),
                                  nested: Nested(leaf: third, two: Two(first: fourth, second: fifth)))
        let expected: Set<NamedEdge> = [
            NamedEdge("holder", "wrapped.state.running.0", "first"),
            NamedEdge("holder", "wrapped.state.running.1", "second"),
            NamedEdge("holder", "wrapped.nested.leaf", "third"),
            NamedEdge("holder", "wrapped.nested.two.first", "fourth"),
            NamedEdge("holder", "wrapped.nested.two.second", "fifth"),
        ]
        #expect(edges(composite, objects) == expected, "in a field of its own type")
        #expect(edges(composite as any Cancelling, objects) == expected)
        #expect(edges(composite as Any, objects) == expected)
        let waiting = Composite(state: .waiting(first), nested: Nested(leaf: third, two: Two(first: fourth, second: fifth)))
        #expect(edges(waiting as Any, objects).contains(NamedEdge("holder", "wrapped.state.waiting", "first")))
    }

    @Test func anIndirectCaseBoxedByGenericCodeIsReadByItsPayloadsType() {
        let leaf = Leaf(), parent = Parent<Int>()
        let objects: [String: AnyObject] = ["leaf": leaf, "parent": parent]
        let expected: Set<NamedEdge> = [NamedEdge("holder", "wrapped.node.0", "leaf"), NamedEdge("holder", "wrapped.node.1", "parent")]
        #expect(edges(Self.link(leaf, parent), objects) == expected)
        #expect(edges(Self.link(leaf, parent) as Any, objects) == expected)
    }

    final class Subscribing: Subscriber, Cancellable {
        typealias Input = Int
        typealias Failure = Never
        var wrappedSubscription: Subscription?
        func receive(subscription: Subscription) { wrappedSubscription = subscription }
        func receive(_ input: Int) -> Subscribers.Demand { .none }
        func receive(completion: Subscribers.Completion<Never>) {}
        func cancel() { wrappedSubscription?.cancel() }
    }

    /// OpenCombine's `autoconnect()` hands its subscriber a `SideEffectSubscription` holding
    /// the `Autoconnect` and the multicast's inner subscription.
    @Test func autoconnectsSideEffectSubscriptionIsReadByItsFields() throws {
        let subject = PassthroughSubject<Int, Never>()
        let autoconnect = subject.multicast { PassthroughSubject<Int, Never>() }.autoconnect()
        let subscriber = Subscribing()
        autoconnect.subscribe(subscriber)
        defer { subscriber.cancel() }
        let root = HeapInspector.address(of: subscriber)
        let graph = HeapInspector().inspect(roots: [root])
        let parent = try #require(graph.targets(of: root, path: "wrappedSubscription.parent").first?.to)
        #expect(parent == HeapInspector.address(of: autoconnect))
        let inner = try #require(graph.targets(of: root, path: "wrappedSubscription.upstreamSubscription").first?.to)
        #expect(graph.nodes[inner]?.typeName.contains("Multicast") == true, "\(graph.nodes[inner]?.typeName ?? "none")")
        #expect(graph.references(from: root).count == 2, "\(graph.references(from: root))")
        withExtendedLifetime((subject, autoconnect)) {}
    }
}
