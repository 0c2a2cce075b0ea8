import Dispatch
import Foundation
import Testing
@testable import LifelineHeap

/// Inspection of words that are not references: random numbers, addresses inside objects, of
/// freed memory, of the stack, of metadata, just before objects, and memory forged to look like
/// objects, closure contexts and boxes. The inspector must never fault, and what it accepts
/// must be a well-formed graph.
@Suite struct StrayWordInspectionTests {
    final class Leaf {
        var number = 7
        weak var weakSelf: Leaf?
        init() { weakSelf = self }
    }

    /// An enum payload's words are followed when they look like pointers, so an `Int` payload
    /// hands the inspector any word at all; so do the words of an `Any` and of a tuple.
    enum Payload {
        case number(Int)
        case object(AnyObject)
    }

    final class WordHolder {
        var payload: Payload
        var any: Any
        var pair: (UInt, UInt)
        var closure: () -> Void

        init(_ word: UInt) {
            payload = .number(Int(bitPattern: word))
            any = word
            pair = (word, word)
            closure = {}
        }
    }

    final class ClosureHolder {
        let closure: () -> Void
        init(_ closure: @escaping () -> Void) { self.closure = closure }

        /// The address of the closure's context.
        var context: UInt? {
            ProcessMemory().word(at: HeapInspector.address(of: self) + UInt(RuntimeLayout.objectHeaderSize + 8))
        }
    }

    /// A random generator with a seed, so a failing run can be repeated.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Inspects `words` as roots and as the words of holders' fields, and checks the graph.
    static func inspectStrayWords(_ words: [UInt], sourceLocation: SourceLocation = #_sourceLocation) {
        let holders = words.map(WordHolder.init)
        let holderAddresses = Set(holders.map(HeapInspector.address(of:)))
        let graph = HeapInspector().inspect(roots: words + holderAddresses)
        for address in holderAddresses {
            #expect(graph.nodes[address] != nil, "a holder is missing", sourceLocation: sourceLocation)
        }
        for node in graph.nodes.values {
            #expect(!node.typeName.isEmpty, sourceLocation: sourceLocation)
        }
        for reference in graph.references {
            #expect(graph.nodes[reference.from] != nil && graph.nodes[reference.to] != nil,
                    "\(reference) joins an object the graph does not hold", sourceLocation: sourceLocation)
        }
        withExtendedLifetime(holders) {}
    }

    /// Every readable mapping's range, from the inspector's own reading of /proc/self/maps.
    static var readableRanges: [Range<UInt>] {
        ProcessMemory().mappings.filter(\.readable).map(\.range)
    }

    @Test(arguments: 0..<8)
    func randomWordsAndRandomAddresses(seed: UInt64) {
        var random = SplitMix(state: seed)
        var words = (0..<200).map { _ in UInt(random.next()) }
        let ranges = Self.readableRanges
        for range in ranges {
            for _ in 0..<8 {
                let offset = UInt.random(in: 0..<UInt(range.count), using: &random) & ~7
                words.append(range.lowerBound + offset)
            }
        }
        Self.inspectStrayWords(words)
    }

    @Test func addressesInsideAroundAndBeforeLiveObjects() {
        let objects: [AnyObject] = [
            Leaf(), NSObject(), NSString(string: String(repeating: "x", count: 40)), DispatchQueue(label: "probe"),
            URL(string: "https://example.com")! as AnyObject, [1, 2, 3] as AnyObject, JSONEncoder(), NSLock(),
        ]
        var words: [UInt] = []
        for object in objects {
            let address = HeapInspector.address(of: object)
            for offset in stride(from: -32, through: 64, by: 8) {
                words.append(UInt(bitPattern: Int(bitPattern: address) + offset))
            }
            // The object's metadata, and words around it.
            if let metadata = ProcessMemory().word(at: address) {
                words += [metadata, metadata &- 8, metadata &+ 8, metadata &+ 16, metadata &+ 40]
            }
            // The side table, when a weak reference made one.
            if let refCount = ProcessMemory().word(at: address + 8),
               let sideTable = RuntimeLayout.sideTable(inRefCount: UInt64(refCount)) {
                words += [sideTable, sideTable &+ 8, sideTable &+ 16, sideTable &- 8]
            }
        }
        Self.inspectStrayWords(words)
        withExtendedLifetime(objects) {}
    }

    @Test func addressesOfFreedObjectsClosuresAndBoxes() {
        var words: [UInt] = []
        for index in 0..<300 {
            let leaf = Leaf()
            words.append(HeapInspector.address(of: leaf))
            var count = index
            let closure = { count += leaf.number }
            closure()
            if let context = ClosureHolder(closure).context {
                words += [context, context &+ 16]
            }
        }
        // Freed memory, much of it reused since by other allocations.
        _ = (0..<100).map { _ in [Leaf(), Leaf()] }
        Self.inspectStrayWords(words)
    }

    @Test func addressesOnTheStackAndInImages() {
        var local = 42
        var words = withUnsafeMutablePointer(to: &local) { pointer in
            (-64...64).map { UInt(bitPattern: pointer) &+ UInt(bitPattern: $0 * 8) }
        }
        let metadata = [Leaf.self, NSObject.self, Int.self, String.self, [Leaf].self, (() -> Void).self, Any.self,
                        Payload.self, Optional<Leaf>.self] as [Any.Type]
        for type in metadata {
            let address = unsafeBitCast(type, to: UInt.self)
            words += [address, address &- 8, address &+ 8, address &+ 24]
            if let descriptor = ProcessMemory().word(at: address + 8) { words += [descriptor, descriptor &+ 8] }
        }
        Self.inspectStrayWords(words)
        withExtendedLifetime(local) {}
    }

    /// Heap memory laid out like a heap object whose metadata word is `metadata`, with the rest
    /// filled from `fill`.
    static func forge(metadata: UInt, words count: Int, fill: (Int, UInt) -> UInt) -> UnsafeMutablePointer<UInt> {
        let memory = UnsafeMutablePointer<UInt>.allocate(capacity: count)
        let base = UInt(bitPattern: memory)
        memory[0] = metadata
        memory[1] = 3  // an inline reference count word: one strong reference, not deiniting
        for index in 2..<count { memory[index] = fill(index, base) }
        return memory
    }

    /// Real class metadata on forged objects, whose fields hold random words and pointers into
    /// the forgery itself.
    @Test(arguments: 0..<4)
    func forgedObjectsOfRealClasses(seed: UInt64) {
        var random = SplitMix(state: seed)
        let classes: [AnyClass] = [Leaf.self, WordHolder.self, NSObject.self, JSONEncoder.self, NSLock.self, DispatchQueue.self]
        var forgeries: [UnsafeMutablePointer<UInt>] = []
        for type in classes {
            for _ in 0..<8 {
                forgeries.append(Self.forge(metadata: unsafeBitCast(type, to: UInt.self), words: 32) { index, base in
                    random.next() % 3 == 0 ? base + UInt(index % 4) * 8 : UInt(random.next())
                })
            }
        }
        Self.inspectStrayWords(forgeries.map { UInt(bitPattern: $0) })
        for forgery in forgeries { forgery.deallocate() }
    }

    /// Forged closure-context and box metadata whose pointers lead into loaded images at random:
    /// the inspector may hand the runtime only names and types it has proven real.
    @Test(arguments: 0..<4)
    func forgedClosureContextsAndBoxes(seed: UInt64) {
        var random = SplitMix(state: seed)
        let images = ProcessMemory().mappings.filter { $0.readable && !$0.isHeap }.map(\.range)
        func imageAddress() -> UInt {
            let range = images[Int.random(in: 0..<images.count, using: &random)]
            return range.lowerBound + (UInt.random(in: 0..<UInt(range.count), using: &random) & ~3)
        }
        var forgeries: [UnsafeMutablePointer<UInt>] = []
        for _ in 0..<64 {
            // Metadata: kind, first capture offset (or box value offset), descriptor (or boxed type).
            let kind = random.next() % 2 == 0 ? RuntimeLayout.closureContextMetadataKind : RuntimeLayout.genericBoxMetadataKind
            let metadata = Self.forge(metadata: kind, words: 8) { index, _ in
                index == 1 ? 16 : (index == 2 ? imageAddress() : UInt(random.next()))
            }
            metadata[1] = 16
            forgeries.append(metadata)
            forgeries.append(Self.forge(metadata: UInt(bitPattern: metadata), words: 16) { _, _ in UInt(random.next()) })
        }
        // A forged box whose boxed type is forged type metadata: a struct kind, a value
        // witness table pointer and a descriptor pointer into images.
        for _ in 0..<32 {
            let type = UnsafeMutablePointer<UInt>.allocate(capacity: 8)
            type[0] = imageAddress() & ~7
            type[1] = [RuntimeLayout.structMetadataKind, RuntimeLayout.enumMetadataKind, RuntimeLayout.classMetadataKind,
                       RuntimeLayout.tupleMetadataKind][Int(random.next() % 4)]
            for index in 2..<8 { type[index] = imageAddress() }
            let box = Self.forge(metadata: RuntimeLayout.genericBoxMetadataKind, words: 4) { _, _ in 0 }
            box[1] = 16
            box[2] = UInt(bitPattern: type + 1)
            forgeries += [type, box, Self.forge(metadata: UInt(bitPattern: box), words: 16) { _, _ in UInt(random.next()) }]
        }
        Self.inspectStrayWords(forgeries.map { UInt(bitPattern: $0) })
        for forgery in forgeries { forgery.deallocate() }
    }

    final class GenericBox<Value> {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Objects whose class metadata is forged in heap memory: the kind word of a class, an
    /// instance size, and the descriptor of a real class (generic or not) or an address in an
    /// image whose flags say "class".
    @Test(arguments: 0..<4)
    func forgedClassMetadata(seed: UInt64) {
        var random = SplitMix(state: seed)
        let memory = ProcessMemory()
        let images = memory.mappings.filter { $0.readable && !$0.isHeap }.map(\.range)
        let realDescriptors = ([GenericBox<Int>.self, GenericBox<Leaf>.self, Leaf.self, JSONEncoder.self] as [AnyClass])
            .compactMap { memory.word(at: unsafeBitCast($0, to: UInt.self) + UInt(RuntimeLayout.classDescriptorOffset)) }
        var classLikeImageAddresses: [UInt] = []
        while classLikeImageAddresses.count < 32 {
            let range = images[Int.random(in: 0..<images.count, using: &random)]
            let address = range.lowerBound + (UInt.random(in: 0..<UInt(range.count), using: &random) & ~3)
            if let flags = memory.uint32(at: address), flags & RuntimeLayout.descriptorKindMask == RuntimeLayout.classDescriptorKind {
                classLikeImageAddresses.append(address)
            }
        }
        var forgeries: [UnsafeMutablePointer<UInt>] = []
        for descriptor in realDescriptors + classLikeImageAddresses {
            let metadata = UnsafeMutablePointer<UInt>.allocate(capacity: 64)
            for index in 0..<64 { metadata[index] = random.next() % 2 == 0 ? 0 : UInt(random.next()) }
            metadata[0] = RuntimeLayout.classMetadataKind
            metadata[1] = 0  // no superclass
            metadata[3] = 48  // instance size
            metadata[5] = descriptor
            forgeries.append(metadata)
            forgeries.append(Self.forge(metadata: UInt(bitPattern: metadata), words: 8) { _, _ in UInt(random.next()) })
        }
        Self.inspectStrayWords(forgeries.map { UInt(bitPattern: $0) })
        for forgery in forgeries { forgery.deallocate() }
    }
}
