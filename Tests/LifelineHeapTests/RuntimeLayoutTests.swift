import Testing
@testable import LifelineHeap

/// Every assumption in `RuntimeLayout`, checked against live objects. If one of these fails,
/// the toolchain changed the runtime's layout: the heap inspector's graphs are no longer
/// trustworthy until `RuntimeLayout` is updated.
@Suite struct RuntimeLayoutTests {
    final class Probe {
        var field = 0
    }

    /// Holds a closure, so that it escapes and its context lives on the heap.
    final class ClosureHolder {
        let closure: () -> Void
        init(_ closure: @escaping () -> Void) { self.closure = closure }

        /// The context word of the stored closure, read from the field itself: handing the
        /// closure to a generic function would wrap it in a reabstraction thunk.
        var context: UInt {
            let field = HeapInspector.address(of: self) + UInt(RuntimeLayout.objectHeaderSize)
            return ProcessMemory().word(at: field + UInt(RuntimeLayout.closureContextWordOffset)) ?? 0
        }
    }

    /// A fresh view of memory at each use: a `ProcessMemory` keeps the pages it has read.
    var memory: ProcessMemory { ProcessMemory() }

    @Test func anObjectStartsWithItsMetadataAndItsReferenceCounts() throws {
        let probe = Probe()
        let address = HeapInspector.address(of: probe)
        let metadata = try #require(memory.word(at: address + UInt(RuntimeLayout.objectMetadataOffset)))
        #expect(metadata == unsafeBitCast(Probe.self, to: UInt.self))
        #expect(memory.word(at: metadata) == RuntimeLayout.classMetadataKind, "class metadata's kind word is 0")
        #expect(memory.uint32(at: metadata + UInt(RuntimeLayout.instanceSizeOffset)) == UInt32(RuntimeLayout.objectHeaderSize + MemoryLayout<Int>.size))
        let descriptor = try #require(memory.word(at: metadata + UInt(RuntimeLayout.classDescriptorOffset)))
        #expect((memory.uint32(at: descriptor) ?? 0) & RuntimeLayout.descriptorKindMask == RuntimeLayout.classDescriptorKind)
        #expect(memory.word(at: metadata + UInt(RuntimeLayout.superclassOffset)) == 0)
        let allocation = try #require(memory.allocationSize(at: address), "a Swift object is a malloc allocation")
        #expect(allocation >= RuntimeLayout.objectHeaderSize + MemoryLayout<Int>.size)
        withExtendedLifetime(probe) {}
    }

    @Test func inlineCountsDecodeToTheRuntimesCounts() throws {
        let probe = Probe()
        let address = HeapInspector.address(of: probe)
        let before = try decodedCounts(address)
        let extra = [probe, probe]
        unowned let unownedProbe = probe
        let after = try decodedCounts(address)
        #expect(after.strong == before.strong + 2, "each strong reference adds one")
        #expect(after.unowned == before.unowned + 1)
        #expect(after.unowned == _getUnownedRetainCount(probe))
        #expect(after.weak == _getWeakRetainCount(probe))
        #expect(RuntimeLayout.sideTable(inRefCount: UInt64(memory.word(at: address + 8) ?? 0)) == nil)
        withExtendedLifetime((extra, unownedProbe, probe)) {}
    }

    @Test func aWeakReferenceHoldsTheSideTableWhichNamesTheObject() throws {
        final class Holder {
            weak var target: Probe?
        }
        let probe = Probe(), holder = Holder()
        holder.target = probe
        let address = HeapInspector.address(of: probe)
        let refCount = try #require(memory.word(at: address + UInt(RuntimeLayout.objectRefCountOffset)))
        let sideTable = try #require(RuntimeLayout.sideTable(inRefCount: UInt64(refCount)))
        #expect(memory.word(at: sideTable + UInt(RuntimeLayout.sideTableObjectOffset)) == address)
        let stored = try #require(memory.word(at: HeapInspector.address(of: holder) + UInt(RuntimeLayout.objectHeaderSize)))
        #expect(stored & ~RuntimeLayout.weakReferenceTagMask == sideTable)
        let counts = try decodedCounts(address)
        #expect(counts.weak == _getWeakRetainCount(probe))
        #expect(counts.unowned == _getUnownedRetainCount(probe))
        let extra = probe
        #expect(try decodedCounts(address).strong == counts.strong + 1)
        withExtendedLifetime((holder, extra, probe)) {}
    }

    @Test func aClosureIsAFunctionAndAContextWithDescribedCaptures() throws {
        let first = Probe(), second = Probe()
        let holder = ClosureHolder { _ = (first, second) }
        let context = holder.context
        #expect(MemoryLayout<() -> Void>.size == 2 * MemoryLayout<UInt>.size)
        let metadata = try #require(memory.word(at: context))
        #expect(memory.word(at: metadata) == RuntimeLayout.closureContextMetadataKind)
        #expect(memory.uint32(at: metadata + UInt(RuntimeLayout.firstCaptureOffsetOffset)) == UInt32(RuntimeLayout.objectHeaderSize))
        let descriptor = try #require(memory.word(at: metadata + UInt(RuntimeLayout.captureDescriptorOffset)))
        #expect(memory.uint32(at: descriptor + UInt(RuntimeLayout.captureCountOffset)) == 2)
        #expect(memory.uint32(at: descriptor + UInt(RuntimeLayout.captureBindingCountOffset)) == 0)
        #expect(memory.word(at: context + 16) == HeapInspector.address(of: first))
        #expect(memory.word(at: context + 24) == HeapInspector.address(of: second))
        let name = try #require(memory.relativePointer(at: descriptor + UInt(RuntimeLayout.captureRecordsOffset)))
        #expect(MangledName.type(at: name, in: memory)?.type == Probe.self)
        withExtendedLifetime((first, second, holder)) {}
    }

    @Test func functionMetadataNamesItsCallingConvention() throws {
        func convention(_ type: Any.Type) throws -> UInt {
            let metadata = unsafeBitCast(type, to: UInt.self)
            #expect(memory.word(at: metadata) == RuntimeLayout.functionMetadataKind)
            let flags = try #require(memory.word(at: metadata + UInt(RuntimeLayout.functionFlagsOffset)))
            return (flags >> RuntimeLayout.functionConventionShift) & RuntimeLayout.functionConventionMask
        }
        #expect(try convention((() -> Void).self) == RuntimeLayout.swiftFunctionConvention)
        #expect(try convention((@Sendable (Int) throws -> String).self) == RuntimeLayout.swiftFunctionConvention)
        #expect(try convention((@convention(c) () -> Void).self) != RuntimeLayout.swiftFunctionConvention)
        #expect(try convention((@convention(thin) () -> Void).self) != RuntimeLayout.swiftFunctionConvention)
    }

    @Test func aSingleCapturedObjectIsItsClosuresContext() {
        let probe = Probe()
        let holder = ClosureHolder { _ = probe }
        #expect(holder.context == HeapInspector.address(of: probe))
        withExtendedLifetime((probe, holder)) {}
    }

    @Test func weakAndUnownedFieldsAreMarkedInTheirMangledNames() throws {
        final class Marked {
            weak var weakField: Probe?
            unowned var unownedField: Probe
            unowned(unsafe) var unsafeField: Probe
            var strongField: Probe
            init(_ probe: Probe) {
                unownedField = probe
                unsafeField = probe
                strongField = probe
            }
        }
        let probe = Probe(), marked = Marked(probe)
        let catalog = MetadataCatalog(memory: memory)
        let metadata = unsafeBitCast(Marked.self, to: UInt.self)
        guard case .instance(let layout)? = catalog.heapKind(metadata: metadata) else {
            Issue.record("Marked's metadata did not validate")
            return
        }
        #expect(layout.fields.map(\.name) == ["weakField", "unownedField", "unsafeField", "strongField"])
        #expect(layout.fields.map(\.ownership) == [.weak, .unowned, .unownedUnsafe, .strong])
        withExtendedLifetime((probe, marked)) {}
    }

    @Test func collectionsAreOneWordOfStorageWithTheDocumentedHeader() throws {
        let probes = [Probe(), Probe(), Probe()]
        let array = probes
        let storage = unsafeBitCast(array, to: UInt.self)
        #expect(MemoryLayout<[Probe]>.size == MemoryLayout<UInt>.size)
        #expect(memory.word(at: storage + UInt(RuntimeLayout.arrayCountOffset)) == 3)
        #expect(memory.word(at: storage + UInt(RuntimeLayout.arrayElementsOffset + 8)) == HeapInspector.address(of: probes[1]))

        let set: Set<Int> = [10, 20, 30, 40, 50]
        let setStorage = unsafeBitCast(set, to: UInt.self)
        #expect(memory.word(at: setStorage + UInt(RuntimeLayout.hashedCountOffset)) == 5)
        let scale = try #require(memory.byte(at: setStorage + UInt(RuntimeLayout.hashedScaleOffset)))
        let elements = try #require(memory.word(at: setStorage + UInt(RuntimeLayout.setElementsPointerOffset)))
        let bitmap = try #require(memory.word(at: setStorage + UInt(RuntimeLayout.setBitmapOffset)))
        let occupied = (0..<(1 << Int(scale))).filter { bitmap & (1 << UInt($0)) != 0 }
        let values = occupied.compactMap { memory.word(at: elements + UInt($0 * 8)).map(Int.init(bitPattern:)) }
        #expect(Set(values) == set)

        let dictionary: [Int: Int] = [1: 100, 2: 200]
        let dictionaryStorage = unsafeBitCast(dictionary, to: UInt.self)
        let keys = try #require(memory.word(at: dictionaryStorage + UInt(RuntimeLayout.dictionaryKeysPointerOffset)))
        let valuesPointer = try #require(memory.word(at: dictionaryStorage + UInt(RuntimeLayout.dictionaryValuesPointerOffset)))
        let dictionaryBitmap = try #require(memory.word(at: dictionaryStorage + UInt(RuntimeLayout.dictionaryBitmapOffset)))
        var pairs: [Int: Int] = [:]
        for bucket in 0..<64 where dictionaryBitmap & (1 << UInt(bucket)) != 0 {
            if let key = memory.word(at: keys + UInt(bucket * 8)), let value = memory.word(at: valuesPointer + UInt(bucket * 8)),
               bucket < 1 << Int(memory.byte(at: dictionaryStorage + UInt(RuntimeLayout.hashedScaleOffset)) ?? 0) {
                pairs[Int(bitPattern: key)] = Int(bitPattern: value)
            }
        }
        #expect(pairs == dictionary)
        withExtendedLifetime((probes, array, set, dictionary)) {}
    }

    func decodedCounts(_ address: UInt) throws -> (strong: Int, weak: Int, unowned: Int) {
        let refCount = try #require(memory.word(at: address + UInt(RuntimeLayout.objectRefCountOffset)))
        if let sideTable = RuntimeLayout.sideTable(inRefCount: UInt64(refCount)) {
            let bits = try #require(memory.word(at: sideTable + UInt(RuntimeLayout.sideTableRefCountOffset)))
            let weak = try #require(memory.uint32(at: sideTable + UInt(RuntimeLayout.sideTableWeakCountOffset)))
            return RuntimeLayout.counts(inline: UInt64(bits), weak: weak)
        }
        return RuntimeLayout.counts(inline: UInt64(refCount), weak: 1)
    }
}
