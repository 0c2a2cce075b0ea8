import Testing
@testable import LifelineHeap

/// Enums, existentials and tuples are read by their types: the inspector finds the references
/// their active case, dynamic type or elements hold, with the case or element in the path, and
/// never reads an integer that happens to equal a live object's address as a reference.
@Suite struct TypedValueTests {
    final class Leaf {}

    /// Holds one value of any type in its field `value`.
    final class Holder<Value> {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    struct Pair {
        var leaf: Leaf
        var count: Int
    }

    struct Borrowed {
        unowned var leaf: Leaf
    }

    /// More than three words: an existential holds it in a box.
    struct Large {
        var first = 1, second = 2, third = 3
        var leaf: Leaf
    }

    protocol Named: AnyObject {}
    final class NamedLeaf: Named {}

    protocol Source<Element> {
        associatedtype Element
    }

    protocol ClassSource<Element>: AnyObject {
        associatedtype Element
    }

    final class SourceLeaf: Source, ClassSource {
        typealias Element = Int
    }

    struct NumberSource: Source {
        typealias Element = Int
        var number: Int
    }
    final class Failure: Error {}

    struct Problem: Error {
        var leaf: Leaf
    }

    enum Slot {
        case empty
        case filled(Leaf)
    }

    enum Multi {
        case object(Leaf)
        case pair(Pair)
        case number(Int)
        case borrowed(Borrowed)
        case nothing
    }

    enum Either<Left, Right> {
        case left(Left)
        case right(Right)
    }

    enum Chain {
        indirect case link(Leaf, Chain)
        case end
    }

    /// Empty cases declared before the payload cases, which still take the first tags.
    enum Lifecycle {
        case idle
        case stopped
        case running(Leaf)
        case paused(Int)
    }

    /// The edges inspection finds from a holder of `value`, naming the holder "holder" and
    /// each leaf by its name in `leaves`.
    func edges<Value>(_ value: Value, _ leaves: [String: AnyObject] = [:]) -> Set<NamedEdge> {
        let holder = Holder(value)
        let root = HeapInspector.address(of: holder)
        let graph = HeapInspector().inspect(roots: [root])
        var names = [root: "holder"]
        for (name, leaf) in leaves { names[HeapInspector.address(of: leaf)] = name }
        return withExtendedLifetime((holder, leaves)) { graph.namedEdges(names) }
    }

    /// An `Int` equal to the address of `live`.
    func address(of live: AnyObject) -> Int {
        Int(bitPattern: HeapInspector.address(of: live))
    }

    // MARK: No false edges

    @Test func anIntEqualToALiveObjectsAddressIsNotAReference() {
        let live = Leaf()
        let number = address(of: live)
        #expect(edges(number, ["live": live]).isEmpty, "an Int field")
        #expect(edges(Pair(leaf: Leaf(), count: number), ["live": live]).filter { $0.to == "live" }.isEmpty,
                "an Int in a struct")
        #expect(edges(Multi.number(number), ["live": live]).isEmpty, "an enum's Int payload")
        #expect(edges(Lifecycle.paused(number), ["live": live]).isEmpty, "an enum's Int payload")
        #expect(edges(Either<Int, Leaf>.left(number), ["live": live]).isEmpty, "a generic enum's Int payload")
        #expect(edges(number as Any, ["live": live]).isEmpty, "an Any holding an Int")
        #expect(edges((number, number), ["live": live]).isEmpty, "a tuple of Ints")
        #expect(edges(Optional(number), ["live": live]).isEmpty, "an optional Int")
        #expect(edges(Optional(Multi.number(number)), ["live": live]).isEmpty, "an optional enum's Int payload")
        #expect(edges(Optional(number as Any), ["live": live]).isEmpty, "an optional Any holding an Int")
        withExtendedLifetime(live) {}
    }

    // MARK: Enums

    @Test func aSinglePayloadEnumsReferenceIsItsCase() {
        let leaf = Leaf()
        #expect(edges(Slot.filled(leaf), ["leaf": leaf]) == [NamedEdge("holder", "value.filled", "leaf")])
        #expect(edges(Slot.empty).isEmpty)
        #expect(edges(Optional(Slot.filled(leaf)), ["leaf": leaf]) == [NamedEdge("holder", "value.filled", "leaf")])
        #expect(edges(nil as Slot?).isEmpty)
        #expect(edges(Optional(Slot.empty)).isEmpty)
    }

    @Test func aMultiPayloadEnumIsReadAsItsActiveCasesPayload() {
        let leaf = Leaf()
        let expected: [(Multi, Set<NamedEdge>)] = [
            (.object(leaf), [NamedEdge("holder", "value.object", "leaf")]),
            (.pair(Pair(leaf: leaf, count: 3)), [NamedEdge("holder", "value.pair.leaf", "leaf")]),
            (.borrowed(Borrowed(leaf: leaf)), [NamedEdge("holder", "value.borrowed.leaf", "leaf", .unowned)]),
            (.number(7), []),
            (.nothing, []),
        ]
        for (value, edges) in expected {
            #expect(self.edges(value, ["leaf": leaf]) == edges, "\(value)")
            #expect(self.edges(Optional(value), ["leaf": leaf]) == edges, "\(value)?")
        }
        #expect(edges(nil as Multi?).isEmpty)
    }

    @Test func aGenericEnumsPayloadTypeComesFromItsGenericArguments() {
        let leaf = Leaf()
        #expect(edges(Either<Int, Leaf>.right(leaf), ["leaf": leaf]) == [NamedEdge("holder", "value.right", "leaf")])
        #expect(edges(Either<Leaf, Int>.left(leaf), ["leaf": leaf]) == [NamedEdge("holder", "value.left", "leaf")])
        #expect(edges(Either<Pair, Int>.left(Pair(leaf: leaf, count: 1)), ["leaf": leaf])
            == [NamedEdge("holder", "value.left.leaf", "leaf")])
        #expect(edges(Optional(Either<Int, Leaf>.right(leaf)), ["leaf": leaf]) == [NamedEdge("holder", "value.right", "leaf")])
    }

    @Test func anIndirectCasesPayloadIsReadFromItsBox() {
        let first = Leaf(), second = Leaf()
        let chain = Chain.link(first, .link(second, .end))
        let expected: Set<NamedEdge> = [
            NamedEdge("holder", "value.link.0", "first"),
            NamedEdge("holder", "value.link.1.link.0", "second"),
        ]
        #expect(edges(chain, ["first": first, "second": second]) == expected)
        #expect(edges(Optional(chain), ["first": first, "second": second]) == expected)
        #expect(edges(Chain.end).isEmpty)
    }

    @Test func emptyCasesDeclaredFirstStillFollowThePayloadCases() {
        let leaf = Leaf()
        #expect(edges(Lifecycle.running(leaf), ["leaf": leaf]) == [NamedEdge("holder", "value.running", "leaf")])
        #expect(edges(Optional(Lifecycle.running(leaf)), ["leaf": leaf]) == [NamedEdge("holder", "value.running", "leaf")])
        #expect(edges(Lifecycle.idle).isEmpty)
        #expect(edges(Lifecycle.stopped).isEmpty)
    }

    // MARK: Existentials

    @Test func anAnyHoldingAnObjectReferencesIt() {
        let leaf = Leaf()
        #expect(edges(leaf as Any, ["leaf": leaf]) == [NamedEdge("holder", "value", "leaf")])
        #expect(edges(Optional(leaf as Any), ["leaf": leaf]) == [NamedEdge("holder", "value", "leaf")])
        #expect(edges(nil as Any?).isEmpty)
    }

    @Test func anAnyHoldingABoxedStructReferencesWhatTheStructHolds() {
        let leaf = Leaf()
        #expect(MemoryLayout<Large>.size > 3 * MemoryLayout<UInt>.size, "too large for the inline buffer")
        let expected: Set<NamedEdge> = [NamedEdge("holder", "value.leaf", "leaf")]
        #expect(edges(Large(leaf: leaf) as Any, ["leaf": leaf]) == expected)
        #expect(edges(Optional(Large(leaf: leaf) as Any), ["leaf": leaf]) == expected)
        #expect(edges(Pair(leaf: leaf, count: 2) as Any, ["leaf": leaf]) == [NamedEdge("holder", "value.leaf", "leaf")],
                "an inline struct")
        #expect(edges(Multi.object(leaf) as Any, ["leaf": leaf]) == [NamedEdge("holder", "value.object", "leaf")],
                "an inline enum")
    }

    /// Generic instances and tuples have value witness tables the runtime made, outside any
    /// image.
    @Test func anAnyHoldingAGenericInstanceOrATupleIsReadByItsType() {
        let leaf = Leaf(), live = Leaf()
        let leaves: [String: AnyObject] = ["leaf": leaf, "live": live]
        #expect(edges(Optional(leaf) as Any, leaves) == [NamedEdge("holder", "value", "leaf")])
        #expect(edges(Either<Int, Leaf>.right(leaf) as Any, leaves) == [NamedEdge("holder", "value.right", "leaf")])
        #expect(edges(Either<Int, Leaf>.left(address(of: live)) as Any, leaves).isEmpty)
        #expect(edges((address(of: live), leaf) as Any, leaves) == [NamedEdge("holder", "value.1", "leaf")])
    }

    @Test func aConstrainedExistentialIsReadAsItsPlainKindIs() {
        let leaf = SourceLeaf(), live = Leaf()
        let leaves: [String: AnyObject] = ["leaf": leaf, "live": live]
        #expect(edges(leaf as any Source<Int>, leaves) == [NamedEdge("holder", "value", "leaf")])
        #expect(edges(leaf as any ClassSource<Int>, leaves) == [NamedEdge("holder", "value", "leaf")])
        #expect(edges(NumberSource(number: address(of: live)) as any Source<Int>, leaves).isEmpty)
        #expect(edges(Optional(leaf as any ClassSource<Int>), leaves) == [NamedEdge("holder", "value", "leaf")])
    }

    @Test func aClassBoundExistentialIsAReference() {
        let leaf = NamedLeaf()
        #expect(edges(leaf as any Named, ["leaf": leaf]) == [NamedEdge("holder", "value", "leaf")])
        #expect(edges(Optional(leaf as any Named), ["leaf": leaf]) == [NamedEdge("holder", "value", "leaf")])
        #expect(edges(nil as (any Named)?).isEmpty)
    }

    final class Delegating {
        weak var delegate: (any Named)?
        unowned var owner: any Named
        init(delegate: any Named, owner: any Named) {
            self.delegate = delegate
            self.owner = owner
        }
    }

    @Test func weakAndUnownedClassBoundExistentialsKeepTheirOwnership() {
        let delegate = NamedLeaf(), owner = NamedLeaf()
        let delegating = Delegating(delegate: delegate, owner: owner)
        let root = HeapInspector.address(of: delegating)
        let graph = HeapInspector().inspect(roots: [root])
        let names = [root: "delegating", HeapInspector.address(of: delegate): "delegate", HeapInspector.address(of: owner): "owner"]
        #expect(graph.namedEdges(names) == [
            NamedEdge("delegating", "delegate", "delegate", .weak),
            NamedEdge("delegating", "owner", "owner", .unowned),
        ])
        withExtendedLifetime((delegate, owner, delegating)) {}
    }

    @Test func anErrorExistentialReferencesTheErrorInItsBox() {
        let failure = Failure()
        #expect(edges(failure as any Error, ["failure": failure]) == [NamedEdge("holder", "value", "failure")])
        #expect(edges(Optional(failure as any Error), ["failure": failure]) == [NamedEdge("holder", "value", "failure")])
        #expect(edges(nil as (any Error)?).isEmpty)
        let leaf = Leaf()
        #expect(edges(Problem(leaf: leaf) as any Error, ["leaf": leaf]) == [NamedEdge("holder", "value.leaf", "leaf")],
                "a struct error")
    }

    // MARK: Tuples

    @Test func aTuplesElementsAreReadByTheirTypes() {
        let leaf = Leaf(), live = Leaf()
        let leaves: [String: AnyObject] = ["leaf": leaf, "live": live]
        #expect(edges((address(of: live), leaf), leaves) == [NamedEdge("holder", "value.1", "leaf")])
        #expect(edges((count: address(of: live), leaf: leaf), leaves) == [NamedEdge("holder", "value.leaf", "leaf")])
        #expect(edges(Optional((address(of: live), leaf)), leaves) == [NamedEdge("holder", "value.1", "leaf")])
        #expect(edges(nil as (Int, Leaf)?).isEmpty)
    }
}
