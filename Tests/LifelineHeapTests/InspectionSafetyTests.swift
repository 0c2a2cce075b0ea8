import Dispatch
import Foundation
import OpenCombineShim
import Testing
@testable import LifelineHeap

/// Inspection never faults: not on words that are not objects, not on objects that die while
/// they are read, not while other threads change what it reads.
@Suite struct InspectionSafetyTests {
    final class Leaf {}

    @Test func wordsThatAreNotObjectsGiveAnEmptyGraph() {
        var local = 42
        let stack = withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
        let leaf = Leaf()
        let metadata = unsafeBitCast(Leaf.self, to: UInt.self)
        let insideObject = HeapInspector.address(of: leaf) + 8
        let raw = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        raw.initializeMemory(as: UInt8.self, repeating: 0xAB, count: 64)
        defer { raw.deallocate() }
        let garbage: [UInt] = [
            0, 1, 0x1000, 0xFFFF_FFFF_FFFF_FFF8, 0x0000_7FFF_FFFF_F000, stack, metadata, insideObject,
            UInt(bitPattern: raw), UInt(bitPattern: raw) + 16,
        ]
        let graph = HeapInspector().inspect(roots: garbage)
        #expect(graph.nodes.isEmpty)
        #expect(graph.references.isEmpty)
        withExtendedLifetime(leaf) {}
    }

    /// Holds an unmanaged reference made from any address at all: the inspector follows it as
    /// a reference, so it must validate whatever the word points at. Nothing retains it.
    final class UnmanagedHolder {
        let target: Unmanaged<Leaf>
        init(_ address: UInt) {
            target = Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: address)!)
        }
    }

    /// What fills the memory the garbage words point at: zeros, all ones, a huge chunk size
    /// that overflows when added to, or pointers back into the same memory.
    enum Garbage: CaseIterable {
        case zeros, ones, hugeChunkSize, selfPointers

        func word(at address: UInt) -> UInt {
            switch self {
            case .zeros: return 0
            case .ones: return .max
            case .hugeChunkSize: return 0xFFFF_FFFF_FFFF_FFF0
            case .selfPointers: return address
            }
        }
    }

    struct Plain {
        var number = 0
    }

    /// An `Any` whose type word points at metadata with a real kind and descriptor but a
    /// value witness table of garbage: the inspector never asks that table for a size.
    @Test(arguments: Garbage.allCases)
    func typeMetadataWithAGarbageWitnessTableIsNotTrusted(garbage: Garbage) {
        let table = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 16)
        let tableAddress = UInt(bitPattern: table)
        for offset in stride(from: 0, to: 128, by: 8) {
            table.storeBytes(of: garbage.word(at: tableAddress + UInt(offset)), toByteOffset: offset, as: UInt.self)
        }
        let fake = UnsafeMutableRawPointer.allocate(byteCount: 32, alignment: 16)
        let real = unsafeBitCast(Plain.self, to: UnsafeRawPointer.self)
        // The table pointer, then the real metadata's kind and descriptor.
        fake.storeBytes(of: tableAddress, toByteOffset: 0, as: UInt.self)
        (fake + 8).copyMemory(from: real, byteCount: 16)
        defer {
            table.deallocate()
            fake.deallocate()
        }
        let catalog = MetadataCatalog(memory: ProcessMemory())
        #expect(catalog.type(metadata: UInt(bitPattern: fake) + 8) == nil)
        #expect(catalog.type(metadata: unsafeBitCast(Plain.self, to: UInt.self)) != nil, "the real metadata checks out")
    }

    /// Foundation's DispatchWorkItem stores a `@convention(block)` function, whose metadata
    /// has no value witness table on Linux: the walk must not ask for its size.
    @Test func aBlockFunctionFieldIsSkipped() throws {
        let probe = Leaf()
        let item = DispatchWorkItem { _ = probe }
        let graph = HeapInspector().inspect(roots: [HeapInspector.address(of: item)])
        #expect(graph.nodes[HeapInspector.address(of: item)] != nil)
        withExtendedLifetime((probe, item)) {}
    }

    @Test(arguments: Garbage.allCases)
    func aWordPointingAtGarbageIsNotFollowed(garbage: Garbage) {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)
        let base = UInt(bitPattern: raw)
        for offset in stride(from: 0, to: 256, by: 8) {
            raw.storeBytes(of: garbage.word(at: base + UInt(offset)), toByteOffset: offset, as: UInt.self)
        }
        defer { raw.deallocate() }
        let holders = [16, 48, 128, 240].map { UnmanagedHolder(base + UInt($0)) }
        let graph = HeapInspector().inspect(roots: holders.map { HeapInspector.address(of: $0) })
        #expect(graph.nodes.count == holders.count)
        #expect(graph.references.isEmpty)
        // The same holder pointing at a live object gives an edge: the garbage words were
        // followed, and rejected.
        let live = Leaf(), control = UnmanagedHolder(HeapInspector.address(of: live))
        let controlGraph = HeapInspector().inspect(roots: [HeapInspector.address(of: control)])
        #expect(controlGraph.references.map(\.to) == [HeapInspector.address(of: live)])
        withExtendedLifetime((holders, live, control)) {}
    }

    final class Dying {
        var onDeinit: (UInt) -> Void = { _ in }
        deinit { onDeinit(HeapInspector.address(of: self)) }
    }

    final class Watcher {
        unowned(unsafe) var target: Dying
        init(_ target: Dying) { self.target = target }
    }

    @Test(arguments: [false, true])
    func anObjectBeingDeinitializedIsNotAnObject(hasSideTable: Bool) {
        var watcher: Watcher?
        var graph: HeapGraph?
        var dyingAddress: UInt = 0
        weak var weakReference: Dying?
        do {
            let dying = Dying()
            if hasSideTable { weakReference = dying }
            watcher = Watcher(dying)
            dying.onDeinit = { address in
                dyingAddress = address
                graph = HeapInspector().inspect(roots: [HeapInspector.address(of: watcher!), address])
            }
        }
        #expect(dyingAddress != 0 && weakReference == nil)
        #expect(graph?.nodes.count == 1, "only the watcher: the dying object is neither a root nor a target")
        #expect(graph?.nodes[dyingAddress] == nil)
        #expect(graph?.references.isEmpty == true)
    }

    @Test func theWalkStopsAtItsObjectLimit() {
        final class Crowd {
            var members = (0..<1_000).map { _ in Leaf() }
        }
        let crowd = Crowd()
        let graph = HeapInspector(objectLimit: 50).inspect(roots: [HeapInspector.address(of: crowd)])
        #expect(graph.nodes.count == 50)
        for reference in graph.references {
            #expect(graph.nodes[reference.from] != nil && graph.nodes[reference.to] != nil)
        }
        withExtendedLifetime(crowd) {}
    }

    @Test func theAddressOfADeadObjectIsNotFollowedIntoFreedMemory() {
        var addresses: [UInt] = []
        for _ in 0..<1_000 {
            let leaf = Leaf()
            addresses.append(HeapInspector.address(of: leaf))
        }
        // The addresses are dead or reused by live objects; whatever the inspector accepts
        // must be a well-formed graph.
        let graph = HeapInspector().inspect(roots: addresses)
        for reference in graph.references {
            #expect(graph.nodes[reference.from] != nil && graph.nodes[reference.to] != nil)
        }
    }

    /// Cancellables made and dropped by other threads, under a lock the inspector ignores.
    final class Churn: @unchecked Sendable {
        private let lock = NSLock()
        private var cancellables: [AnyCancellable] = []
        private var subjects: [PassthroughSubject<Int, Never>] = []
        private var stopped = false
        private(set) var values = 0

        var isStopped: Bool { lock.withLock { stopped } }
        var hasCancellables: Bool { lock.withLock { !cancellables.isEmpty } }
        func stop() { lock.withLock { stopped = true } }

        func runPipelines(round: Int) {
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.map { $0 * 2 }.filter { $0 >= 0 }.sink { [weak self] value in
                guard let self else { return }
                self.lock.withLock { self.values &+= value }
            }
            lock.withLock {
                cancellables.append(cancellable)
                subjects.append(subject)
                if cancellables.count > 8 {
                    cancellables.removeFirst(4)
                    subjects.removeFirst(4)
                }
            }
            subject.send(round)
        }
    }

    @Test func inspectingWhileOtherThreadsRunPipelinesNeverFaults() {
        let churn = Churn()
        let group = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                var round = 0
                while !churn.isStopped {
                    churn.runPipelines(round: round)
                    round += 1
                }
            }
        }
        // Inspections are quick: on a busy machine all of them could be over before the other
        // threads start.
        while !churn.hasCancellables { usleep(1_000) }
        let root = HeapInspector.address(of: churn)
        var sawCancellables = 0
        for _ in 0..<200 {
            let graph = HeapInspector().inspect(roots: [root])
            #expect(graph.nodes[root] != nil)
            for reference in graph.references {
                #expect(graph.nodes[reference.from] != nil && graph.nodes[reference.to] != nil)
            }
            if graph.nodes.values.contains(where: { $0.typeName == "OpenCombine.AnyCancellable" }) { sawCancellables += 1 }
        }
        churn.stop()
        group.wait()
        #expect(sawCancellables > 0, "the inspections saw the cancellables the other threads made")
    }
}
