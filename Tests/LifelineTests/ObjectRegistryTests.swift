@testable import Lifeline
import CLifelineRuntime
import LifelineLog
import OpenCombineShim
import Testing

extension RecordingTests {
    /// The registry's hot-path cache gives an id only to the very object it was made for, and
    /// its sweeps cost the same however many objects live.
    @Suite struct ObjectRegistryTests {
        final class Node {}

        /// A registry of its own recording generation, far from any real recording's.
        func makeRegistry() -> ObjectRegistry {
            ObjectRegistry(generation: UInt64.random(in: 1 << 40..<1 << 60))
        }

        func declaration(_ id: TraceObjectID) -> TraceObject {
            TraceObject(id: id, role: .subscriber, typeName: "Node", shortTypeName: "Node", lifetimeTracked: true)
        }

        var nodeMetadata: UnsafeRawPointer { unsafeBitCast(Node.self as Any.Type, to: UnsafeRawPointer.self) }

        func address(of object: AnyObject) -> UnsafeRawPointer {
            UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        }

        func identify(_ node: Node, in registry: ObjectRegistry) -> TraceObjectID {
            registry.identify(object: node, role: .subscriber, metadata: nodeMetadata, declare: declaration).id
        }

        @Test func aKnownObjectIsFoundInTheCacheUnderItsOwnTypeOnly() {
            let registry = makeRegistry()
            let node = Node()
            let id = identify(node, in: registry)
            #expect(registry.cachedID(of: address(of: node), metadata: nodeMetadata) == id)
            let otherType = unsafeBitCast(Int.self as Any.Type, to: UnsafeRawPointer.self)
            #expect(registry.cachedID(of: address(of: node), metadata: otherType) == nil)
            #expect(makeRegistry().cachedID(of: address(of: node), metadata: nodeMetadata) == nil, "another recording")
        }

        /// Allocates nodes until one takes `address` (the allocator hands a freed block to the
        /// next object of the same size), keeping the others in `kept`; `nil` after 1,000.
        func nodeReusing(_ address: UnsafeRawPointer, keeping kept: inout [Node]) -> Node? {
            for _ in 0..<1_000 {
                let candidate = Node()
                if self.address(of: candidate) == address { return candidate }
                kept.append(candidate)
            }
            return nil
        }

        @Test func anObjectAtADeadObjectsAddressNeverGetsItsID() throws {
            let registry = makeRegistry()
            var node: Node? = Node()
            let deadAddress = address(of: node!)
            let deadID = identify(node!, in: registry)
            node = nil
            var kept: [Node] = []
            #if !canImport(ObjectiveC)
            // The registry holds the dead object's memory until a sweep finds the death.
            #expect(nodeReusing(deadAddress, keeping: &kept) == nil, "the address was reused while the registry held it")
            #endif
            #expect(registry.sweepAll(aliveAt: 1).map(\.id) == [deadID])
            #expect(registry.cachedID(of: deadAddress, metadata: nodeMetadata) == nil)
            let newcomer = try #require(nodeReusing(deadAddress, keeping: &kept), "no object reused the dead one's address")
            #expect(registry.cachedID(of: deadAddress, metadata: nodeMetadata) == nil)
            // Even once something else holds it weakly (so that it has a side table of its own).
            weak var observer = newcomer
            #expect(observer != nil)
            #expect(registry.cachedID(of: deadAddress, metadata: nodeMetadata) == nil)
            let newID = identify(newcomer, in: registry)
            #expect(newID != deadID)
            #expect(registry.cachedID(of: deadAddress, metadata: nodeMetadata) == newID)
            withExtendedLifetime(kept) {}
        }

        #if !canImport(ObjectiveC)
        /// A weak reference gives its object a side table, and every strong retain and release
        /// of an object with a side table takes the runtime's slow path: the traced program's
        /// own. The registry's hold is an unowned reference in the object's inline counts.
        @Test func aKnownObjectGetsNoSideTableAndIsLetGoWhenTheRegistryCloses() {
            let registry = makeRegistry()
            let node = Node()
            _ = identify(node, in: registry)
            let word = lifeline_identity_header_word(address(of: node))
            #expect(word >> 62 != 3, "the object has a side table")
            #expect(_getUnownedRetainCount(node) == 2, "the object's own and the registry's")
            registry.close()
            #expect(_getUnownedRetainCount(node) == 1)
            #expect(registry.liveAddresses().isEmpty)
        }

        /// A call from an object's own deinit (a subscription cancelling itself as it goes) meets
        /// an object that is already dead to the registry: its death is recorded once, and the
        /// registry may hold it again without keeping it alive or crashing once it is freed.
        @Test func anObjectIdentifiedFromItsOwnDeinitIsDeadAndHeldSafely() {
            final class SelfReporting {
                let report: (AnyObject) -> Void
                init(report: @escaping (AnyObject) -> Void) { self.report = report }
                deinit { report(self) }
            }
            let registry = makeRegistry()
            var deaths: [ObjectRegistry.Death] = []
            var ids: [TraceObjectID] = []
            var object: SelfReporting? = SelfReporting { dying in
                let identity = registry.identify(object: dying, role: .subscription, declare: declaration)
                ids.append(identity.id)
                deaths += identity.death.map { [$0] } ?? []
            }
            ids.append(registry.identify(object: object!, role: .subscription, seenAliveAt: 3, declare: declaration).id)
            object = nil
            #expect(ids.count == 2)
            #expect(deaths.map(\.id) == [ids[0]], "the first id's death, seen from the deinit")
            #expect(deaths.first?.aliveAtSeq == 3)
            // The second entry, made for the dying object, is found dead by the next sweep.
            #expect(registry.sweepAll(aliveAt: 9).map(\.id) == [ids[1]])
            #expect(registry.liveAddresses().isEmpty)
        }

        /// An object whose deinit has begun is dead to every reader of the registry at once, and
        /// its memory, which the registry holds, is freed once a sweep records the death.
        @Test func aDeadObjectIsNotLiveBeforeTheSweepAndItsMemoryGoesWithTheSweep() {
            let registry = makeRegistry()
            var node: Node? = Node()
            let deadAddress = address(of: node!)
            let id = identify(node!, in: registry)
            #expect(registry.liveAddresses()[UInt(bitPattern: deadAddress)]?.id == id)
            node = nil
            #expect(registry.liveAddresses().isEmpty)
            #expect(registry.liveAddresses(of: [id]).isEmpty)
            #expect(registry.sweep(aliveAt: 5).map(\.id) == [id])
            var kept: [Node] = []
            #expect(nodeReusing(deadAddress, keeping: &kept) != nil, "the memory was not freed")
            withExtendedLifetime(kept) {}
        }
        #endif

        /// `Subscriptions.empty` is a struct of one word, its combine identifier: the cache must
        /// never take that word for an object's address and follow it.
        @Test func aValueOfPointerSizeIsNeverFollowedAsAnObject() {
            struct OneWord {}
            let registry = makeRegistry()
            let metadata = unsafeBitCast(OneWord.self as Any.Type, to: UnsafeRawPointer.self)
            let identifier = unsafeBitCast(UInt64(0x10), to: CombineIdentifier.self)
            let id = registry.identify(value: identifier, metadata: metadata, declare: declaration).id
            #expect(registry.cachedID(ofValue: identifier, metadata: metadata) == id)
            #expect(registry.cachedID(of: UnsafeRawPointer(bitPattern: 0x10), metadata: metadata) == nil)
        }

        @Test func aRetiredObjectLeavesTheCache() {
            let registry = makeRegistry()
            let node = Node()
            let id = identify(node, in: registry)
            #expect(registry.retire(id))
            #expect(registry.cachedID(of: address(of: node), metadata: nodeMetadata) == nil)
            #expect(identify(node, in: registry) != id, "a retired id is never given again")
        }

        /// The thread's memo of the cache, filled by a look-up that hit, is not trusted once
        /// the object left the cache, nor in a later recording.
        @Test func aRememberedLookUpEndsWithTheEntryAndWithTheRecording() {
            let registry = makeRegistry()
            let node = Node()
            let id = identify(node, in: registry)
            #expect(registry.cachedID(of: address(of: node), metadata: nodeMetadata) == id)
            #expect(registry.cachedID(of: address(of: node), metadata: nodeMetadata) == id, "from the memo")
            #expect(registry.retire(id))
            #expect(registry.cachedID(of: address(of: node), metadata: nodeMetadata) == nil)

            let earlier = makeRegistry()
            let other = Node()
            let earlierID = identify(other, in: earlier)
            #expect(earlier.cachedID(of: address(of: other), metadata: nodeMetadata) == earlierID)
            let later = makeRegistry()
            #expect(later.cachedID(of: address(of: other), metadata: nodeMetadata) == nil)
            withExtendedLifetime(earlier) {}
        }

        /// A value's memo is the value's, never an object's of the same address and type.
        @Test func aRememberedValueIsNeverTakenForAnObject() {
            struct OneWord {}
            let registry = makeRegistry()
            let metadata = unsafeBitCast(OneWord.self as Any.Type, to: UnsafeRawPointer.self)
            let identifier = unsafeBitCast(UInt64(0x20), to: CombineIdentifier.self)
            let id = registry.identify(value: identifier, metadata: metadata, declare: declaration).id
            #expect(registry.cachedID(ofValue: identifier, metadata: metadata) == id)
            #expect(registry.cachedID(ofValue: identifier, metadata: metadata) == id, "from the memo")
            #expect(registry.cachedID(of: UnsafeRawPointer(bitPattern: 0x20), metadata: metadata) == nil)
        }

        @Test func aSweepChecksABoundedNumberOfObjectsAndFindsEveryDeathInTurn() {
            let registry = makeRegistry()
            let count = ObjectRegistry.sweepStep * 3 + 5
            var nodes: [Node] = (0..<count).map { _ in Node() }
            let ids = nodes.map { identify($0, in: registry) }
            nodes.removeAll()
            var deaths: [ObjectRegistry.Death] = []
            var sweeps = 0
            while deaths.count < count && sweeps < 10 {
                sweeps += 1
                let found = registry.sweep(aliveAt: UInt64(100 + sweeps))
                #expect(found.count <= ObjectRegistry.sweepStep)
                deaths += found
            }
            #expect(sweeps == 4)
            #expect(Set(deaths.map(\.id)) == Set(ids))
            #expect(deaths.allSatisfy { $0.aliveAtSeq == 0 }, "never seen alive by a sweep")
        }

        @Test func aLivingObjectIsMarkedAliveWhenItsTurnComesAndItsDeathKeepsThatBound() {
            let registry = makeRegistry()
            let keeper = (0..<ObjectRegistry.sweepStep).map { _ in Node() }
            var watched: Node? = Node()
            keeper.forEach { _ = identify($0, in: registry) }
            let watchedID = identify(watched!, in: registry)
            #expect(registry.sweep(aliveAt: 10).isEmpty, "the first turn checks the others")
            #expect(registry.sweep(aliveAt: 20).isEmpty, "the second turn sees the watched one alive at 20")
            watched = nil
            let deaths = registry.sweepAll(aliveAt: 30)
            #expect(deaths.map(\.id) == [watchedID])
            #expect(deaths.first?.aliveAtSeq == 20)
            withExtendedLifetime(keeper) {}
        }

        /// An object that dies before any sweep reaches it was still alive when it was
        /// identified: its death says so, instead of "last seen alive at #0", before any event.
        @Test func anObjectNoSweepReachedWasLastSeenAliveWhenItWasIdentified() {
            let registry = makeRegistry()
            var early: Node? = Node()
            let earlyID = registry.identify(object: early!, role: .subscriber, metadata: nodeMetadata, seenAliveAt: 7, declare: declaration).id
            var late: Node? = Node()
            let lateID = registry.identify(object: late!, role: .subscriber, metadata: nodeMetadata, seenAliveAt: 9, declare: declaration).id
            // Identified again later, on a path the cache missed: the bound moves on.
            _ = registry.identify(object: late!, role: .subscriber, seenAliveAt: 12, declare: declaration)
            early = nil
            late = nil
            let deaths = registry.sweepAll(aliveAt: 20)
            #expect(Dictionary(uniqueKeysWithValues: deaths.map { ($0.id, $0.aliveAtSeq) }) == [earlyID: 7, lateID: 12])
        }
    }
}
