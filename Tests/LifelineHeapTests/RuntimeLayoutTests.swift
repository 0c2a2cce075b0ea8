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

    // MARK: Enums, existentials and tuples

    enum Lifecycle {
        case idle
        case stopped
        case running(Probe)
        case paused(Int)
    }

    enum TwoObjects {
        case first(Probe)
        case second(Probe)
    }

    enum Either<Left, Right> {
        case left(Left)
        case right(Right)
    }

    enum Chain {
        indirect case link(Probe, Chain)
        case end
    }

    protocol Named: AnyObject {}
    protocol Described {}
    final class Failure: Error {}

    struct ThreeWords {
        var first = 0, second = 0, third = 0
    }

    struct FourWords {
        var first = 0, second = 0, third = 0, fourth = 0
    }

    func metadata(_ type: Any.Type) -> UInt {
        unsafeBitCast(type, to: UInt.self)
    }

    func witnessFlags(_ type: Any.Type) throws -> UInt32 {
        let table = try #require(memory.word(at: metadata(type) - UInt(RuntimeLayout.valueWitnessTableOffsetBack)))
        let size = try #require(memory.word(at: table + UInt(RuntimeLayout.valueWitnessSizeOffset)))
        let stride = try #require(memory.word(at: table + UInt(RuntimeLayout.valueWitnessStrideOffset)))
        func layout<T>(_: T.Type) -> (Int, Int) { (MemoryLayout<T>.size, MemoryLayout<T>.stride) }
        #expect((Int(size), Int(stride)) == layout(type), "size and stride follow the eight functions")
        #expect(RuntimeLayout.valueWitnessSizeOffset == RuntimeLayout.valueWitnessFunctionCount * 8)
        return try #require(memory.uint32(at: table + UInt(RuntimeLayout.valueWitnessFlagsOffset)))
    }

    /// The tag `EnumWitnesses` reads from a copy of `value`, and the copy's first word after
    /// the tag bits are cleared.
    func tagAndPayloadWord<Value>(_ value: Value) throws -> (tag: Int, word: UInt) {
        let witnesses = try #require(EnumWitnesses(of: Value.self, in: memory))
        var value = value
        return withUnsafeMutableBytes(of: &value) { bytes in
            let copy = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 8), alignment: 16)
            defer { copy.deallocate() }
            copy.initializeMemory(as: UInt8.self, repeating: 0, count: max(bytes.count, 8))
            copy.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            let tag = witnesses.takeTag(ofCopy: copy)
            return (tag, copy.load(as: UInt.self))
        }
    }

    @Test func anOptionalClassReferenceIsTheReferenceOrNull() throws {
        let probe = Probe()
        var some: Probe? = probe
        var none: Probe? = nil
        #expect(MemoryLayout<Probe?>.size == MemoryLayout<UInt>.size)
        #expect(withUnsafeBytes(of: &some) { $0.load(as: UInt.self) } == HeapInspector.address(of: probe))
        #expect(withUnsafeBytes(of: &none) { $0.load(as: UInt.self) } == 0)
        #expect(MetadataCatalog(memory: memory).isOptionalClassReference(Probe?.self))
        #expect(!MetadataCatalog(memory: memory).isOptionalClassReference(Int?.self))
        withExtendedLifetime(probe) {}
    }

    @Test func valueWitnessFlagsGiveAlignmentInlineStorageAndEnumWitnesses() throws {
        #expect(try witnessFlags(Int8.self) & RuntimeLayout.alignmentMask == 0)
        #expect(try witnessFlags(Int32.self) & RuntimeLayout.alignmentMask == 3)
        #expect(try witnessFlags((Int8, Int).self) & RuntimeLayout.alignmentMask == 7)
        #expect(try witnessFlags(Probe.self) & RuntimeLayout.isNonInlineFlag == 0)
        #expect(try witnessFlags(ThreeWords.self) & RuntimeLayout.isNonInlineFlag == 0)
        #expect(try witnessFlags(FourWords.self) & RuntimeLayout.isNonInlineFlag != 0)
        for type in [Lifecycle.self, Probe?.self, Either<Int, Probe>.self] as [Any.Type] {
            #expect(try witnessFlags(type) & RuntimeLayout.hasEnumWitnessesFlag != 0, "\(type)")
        }
        for type in [Int.self, Probe.self, ThreeWords.self] as [Any.Type] {
            #expect(try witnessFlags(type) & RuntimeLayout.hasEnumWitnessesFlag == 0, "\(type)")
        }
    }

    @Test func enumTagsNumberPayloadCasesFirstAsTheFieldDescriptorListsThem() throws {
        let probe = Probe()
        #expect(try tagAndPayloadWord(Lifecycle.running(probe)).tag == 0)
        #expect(try tagAndPayloadWord(Lifecycle.paused(7)).tag == 1)
        #expect(try tagAndPayloadWord(Lifecycle.idle).tag == 2)
        #expect(try tagAndPayloadWord(Lifecycle.stopped).tag == 3)
        #expect(try tagAndPayloadWord(Optional(probe)).tag == 0)
        #expect(try tagAndPayloadWord(Probe?.none).tag == 1)

        let descriptor = try #require(memory.word(at: metadata(Lifecycle.self) + UInt(RuntimeLayout.valueDescriptorOffset)))
        let payloadCases = try #require(memory.uint32(at: descriptor + UInt(RuntimeLayout.enumPayloadCaseCountOffset)))
        #expect(payloadCases & RuntimeLayout.enumPayloadCaseCountMask == 2)
        #expect(memory.uint32(at: descriptor + UInt(RuntimeLayout.enumEmptyCaseCountOffset)) == 2)
        let catalog = MetadataCatalog(memory: memory)
        let cases = try #require(catalog.cases(ofEnum: Lifecycle.self))
        #expect(cases.map(\.name) == ["running", "paused", "idle", "stopped"])
        #expect(cases.map { $0.payload.map(metadata) } == [metadata(Probe.self), metadata(Int.self), nil, nil])
        #expect(cases.allSatisfy { !$0.isIndirect })
        let chain = try #require(catalog.cases(ofEnum: Chain.self))
        #expect(chain.map(\.name) == ["link", "end"])
        #expect(chain.map(\.isIndirect) == [true, false], "the indirect flag marks the boxed case")
        withExtendedLifetime(probe) {}
    }

    /// An indirect case's payload word is a box the compiler lays out like a closure context
    /// that captures the payload, so the walk follows it as it follows any context.
    @Test func anIndirectCasesPayloadIsABoxDescribedLikeAClosureContext() throws {
        let probe = Probe()
        let chain = Chain.link(probe, .end)
        let (tag, box) = try tagAndPayloadWord(chain)
        #expect(tag == 0)
        let boxMetadata = try #require(memory.word(at: box))
        #expect(memory.word(at: boxMetadata) == RuntimeLayout.closureContextMetadataKind)
        guard case .closureContext(_, let firstCapture, let captures)? = MetadataCatalog(memory: memory).heapKind(metadata: boxMetadata)
        else {
            Issue.record("the box's metadata did not check out")
            return
        }
        #expect(captures.map { $0.type.map(metadata) } == [metadata((Probe, Chain).self)])
        #expect(memory.word(at: box + UInt(firstCapture)) == HeapInspector.address(of: probe))
        withExtendedLifetime((probe, chain)) {}
    }

    @Test func projectingAMultiPayloadEnumClearsTheTagBitsInItsPayload() throws {
        let probe = Probe()
        let address = HeapInspector.address(of: probe)
        #expect(MemoryLayout<TwoObjects>.size == MemoryLayout<UInt>.size, "the tag lives in the pointer's spare bits")
        let value = TwoObjects.second(probe)
        #expect(Stored(value).words != [address])
        let (tag, word) = try tagAndPayloadWord(value)
        #expect(tag == 1)
        #expect(word == address)
        withExtendedLifetime(probe) {}
    }

    @Test func aGenericEnumsArgumentsFollowItsDescriptor() throws {
        let generic = metadata(Either<Int, Probe>.self)
        let descriptor = try #require(memory.word(at: generic + UInt(RuntimeLayout.valueDescriptorOffset)))
        #expect((memory.uint32(at: descriptor) ?? 0) & RuntimeLayout.genericDescriptorFlag != 0)
        #expect(memory.word(at: generic + UInt(RuntimeLayout.valueGenericArgumentsOffset)) == metadata(Int.self))
        #expect(memory.word(at: generic + UInt(RuntimeLayout.valueGenericArgumentsOffset + 8)) == metadata(Probe.self))
        let plain = try #require(memory.word(at: metadata(Lifecycle.self) + UInt(RuntimeLayout.valueDescriptorOffset)))
        #expect((memory.uint32(at: plain) ?? 0) & RuntimeLayout.genericDescriptorFlag == 0)
        let cases = try #require(MetadataCatalog(memory: memory).cases(ofEnum: Either<Int, Probe>.self))
        #expect(cases.map { $0.payload.map(metadata) } == [metadata(Int.self), metadata(Probe.self)])
    }

    @Test func existentialFlagsSayHowTheValueIsStored() throws {
        func flags(_ type: Any.Type) throws -> UInt32 {
            #expect(memory.word(at: metadata(type)) == RuntimeLayout.existentialMetadataKind)
            return try #require(memory.uint32(at: metadata(type) + UInt(RuntimeLayout.existentialFlagsOffset)))
        }
        func special(_ flags: UInt32) -> UInt32 {
            (flags & RuntimeLayout.existentialSpecialProtocolMask) >> RuntimeLayout.existentialSpecialProtocolShift
        }
        #expect(try flags(Any.self) & RuntimeLayout.existentialAnyTypeFlag != 0)
        #expect(try flags((any Described).self) & RuntimeLayout.existentialAnyTypeFlag != 0)
        #expect(try flags(AnyObject.self) & RuntimeLayout.existentialAnyTypeFlag == 0)
        #expect(try flags((any Named).self) & RuntimeLayout.existentialAnyTypeFlag == 0)
        #expect(try special(flags((any Error).self)) == RuntimeLayout.errorSpecialProtocol)
        #expect(try special(flags(Any.self)) != RuntimeLayout.errorSpecialProtocol)

        let catalog = MetadataCatalog(memory: memory)
        #expect(catalog.representation(ofExistential: Any.self) == .opaque)
        #expect(catalog.representation(ofExistential: (any Described).self) == .opaque)
        #expect(catalog.representation(ofExistential: AnyObject.self) == .classReference)
        #expect(catalog.representation(ofExistential: (any Named).self) == .classReference)
        #expect(catalog.representation(ofExistential: (any Error).self) == .errorBox)
    }

    /// Holds a value in a field, so its words can be read as stored. (Handing an existential
    /// to a generic function would open it to the value it holds.)
    final class Stored<Value> {
        var value: Value
        init(_ value: Value) { self.value = value }

        var words: [UInt] {
            let field = UnsafeRawPointer(bitPattern: HeapInspector.address(of: self) + UInt(RuntimeLayout.objectHeaderSize))!
            return (0..<MemoryLayout<Value>.size / 8).map { field.load(fromByteOffset: $0 * 8, as: UInt.self) }
        }
    }

    protocol Source<Element> {
        associatedtype Element
    }

    protocol ClassSource<Element>: AnyObject {
        associatedtype Element
    }

    @Test func aConstrainedExistentialsShapeSaysHowTheValueIsStored() throws {
        func specialKind(_ type: Any.Type) throws -> UInt32 {
            #expect(memory.word(at: metadata(type)) == RuntimeLayout.extendedExistentialMetadataKind)
            let shape = try #require(memory.word(at: metadata(type) + UInt(RuntimeLayout.extendedExistentialShapeOffset)))
            return try #require(memory.uint32(at: shape)) & RuntimeLayout.shapeSpecialKindMask
        }
        #expect(try specialKind((any Source<Int>).self) == RuntimeLayout.shapeOpaqueKind)
        #expect(try specialKind((any ClassSource<Int>).self) == RuntimeLayout.shapeClassKind)
        #expect(MemoryLayout<any Source<Int>>.size == MemoryLayout<Any>.size + MemoryLayout<UInt>.size)
        #expect(MemoryLayout<any ClassSource<Int>>.size == 2 * MemoryLayout<UInt>.size)
        let catalog = MetadataCatalog(memory: memory)
        #expect(catalog.representation(ofExistential: (any Source<Int>).self) == .opaque)
        #expect(catalog.representation(ofExistential: (any ClassSource<Int>).self) == .classReference)
    }

    @Test func aValueWitnessTableTheRuntimeMadeChecksOut() throws {
        let catalog = MetadataCatalog(memory: memory)
        for type in [Either<Int, Probe>.self, (Int8, Probe).self, Probe?.self] as [Any.Type] {
            let table = try #require(memory.word(at: metadata(type) - UInt(RuntimeLayout.valueWitnessTableOffsetBack)))
            #expect(!MangledName.isInImage(table, memory), "\(type)'s table was made at run time")
            #expect(catalog.type(metadata: metadata(type)) != nil, "\(type)")
        }
    }

    @Test func anOpaqueExistentialHoldsItsValueInlineOrInABoxThenItsType() throws {
        let probe = Probe()
        let inline = Stored<Any>(probe)
        #expect(inline.words.count == 4)
        #expect(inline.words.first == HeapInspector.address(of: probe))
        #expect(inline.words.last == metadata(Probe.self) && RuntimeLayout.existentialTypeOffset == 3 * 8)

        let boxed = Stored<Any>(FourWords(first: 11))
        let box = boxed.words[0]
        #expect(boxed.words[RuntimeLayout.existentialTypeOffset / 8] == metadata(FourWords.self))
        let boxMetadata = try #require(memory.word(at: box))
        // A box the compiler lays out is described like a closure context; one the runtime
        // makes is a generic box. Both give the value's offset.
        let boxKind = try #require(memory.word(at: boxMetadata))
        #expect([RuntimeLayout.closureContextMetadataKind, RuntimeLayout.genericBoxMetadataKind].contains(boxKind))
        let offsetOffset = boxKind == RuntimeLayout.genericBoxMetadataKind
            ? RuntimeLayout.boxValueOffsetOffset : RuntimeLayout.firstCaptureOffsetOffset
        let offset = try #require(memory.uint32(at: boxMetadata + UInt(offsetOffset)))
        let first = memory.word(at: box + UInt(offset))
        #expect(first == 11)
        withExtendedLifetime((probe, inline, boxed)) {}
    }

    /// Four words whose size does not depend on its parameter: generic code boxes it in a box
    /// it describes as a closure context capturing `FourWordsOf<Upstream>`.
    struct FourWordsOf<Upstream> {
        var first = 0, second = 0, third = 0
        var probe: Probe
    }

    /// Four words and a value whose size depends on its parameter: generic code asks the
    /// runtime for a box.
    struct Carrying<Value> {
        var first = 0, second = 0, third = 0
        var value: Value
    }

    static func boxedByGenericCode<Upstream>(_: Upstream.Type, _ probe: Probe) -> Any {
        FourWordsOf<Upstream>(first: 11, probe: probe)
    }

    static func carrying<Value>(_ value: Value) -> Any {
        Carrying(first: 11, value: value)
    }

    struct Aligned {
        var first = 11
        var vectors = (SIMD4<Float>(), SIMD4<Float>())
    }

    /// Whichever made an existential's box, the value follows the header at its alignment,
    /// whatever the box's metadata says its captured type is: generic code's box names it in
    /// terms of generic parameters the box does not keep.
    @Test func aBoxHoldsItsValueAfterTheHeaderAtItsAlignment() throws {
        let probe = Probe()
        let boxes: [(String, Any, Int)] = [
            ("a box the compiler lays out", FourWords(first: 11), MemoryLayout<FourWords>.alignment),
            ("a box generic code lays out", Self.boxedByGenericCode(Int.self, probe), MemoryLayout<FourWordsOf<Int>>.alignment),
            ("a box the runtime makes", Self.carrying((1, 2)), MemoryLayout<Carrying<(Int, Int)>>.alignment),
            ("a 16-byte aligned value's box", Aligned(), MemoryLayout<Aligned>.alignment),
        ]
        for (name, value, alignment) in boxes {
            let stored = Stored<Any>(value)
            #expect(try witnessFlags(type(of: value)) & RuntimeLayout.isNonInlineFlag != 0, "\(name)")
            let box = stored.words[0]
            let boxKind = try #require(memory.word(at: box).flatMap { memory.word(at: $0) })
            #expect([RuntimeLayout.closureContextMetadataKind, RuntimeLayout.genericBoxMetadataKind].contains(boxKind), "\(name)")
            #expect(memory.word(at: box + UInt(RuntimeLayout.boxValueOffset(alignment: alignment))) == 11, "\(name)")
            withExtendedLifetime(stored) {}
        }
        #expect(RuntimeLayout.boxValueOffset(alignment: 1) == RuntimeLayout.objectHeaderSize)
        #expect(RuntimeLayout.boxValueOffset(alignment: 16) == 16)
        withExtendedLifetime(probe) {}
    }

    @Test func anErrorBoxNamesItsValuesTypeAndHoldsTheValue() throws {
        let failure = Failure()
        let error = Stored<any Error>(failure)
        #expect(error.words.count == 1)
        let box = try #require(error.words.first)
        let boxMetadata = try #require(memory.word(at: box))
        let kind = memory.word(at: boxMetadata)
        let type = memory.word(at: box + UInt(RuntimeLayout.errorBoxTypeOffset))
        let value = memory.word(at: box + UInt(RuntimeLayout.errorBoxHeaderSize))
        #expect(kind == RuntimeLayout.errorBoxMetadataKind)
        #expect(type == metadata(Failure.self))
        #expect(value == HeapInspector.address(of: failure))
        withExtendedLifetime((failure, error)) {}
    }

    @Test func tupleMetadataListsLabelsThenTypesAndOffsets() throws {
        let tuple = metadata((count: Int8, probe: Probe, Int).self)
        #expect(memory.word(at: tuple) == RuntimeLayout.tupleMetadataKind)
        #expect(memory.word(at: tuple + UInt(RuntimeLayout.tupleElementCountOffset)) == 3)
        let labels = try #require(memory.word(at: tuple + UInt(RuntimeLayout.tupleLabelsOffset)))
        #expect(String(cString: try #require(UnsafePointer<CChar>(bitPattern: labels))) == "count probe  ")
        let elements = (0..<3).map { tuple + UInt(RuntimeLayout.tupleElementsOffset + $0 * RuntimeLayout.tupleElementStride) }
        #expect(elements.map { memory.word(at: $0) } == [metadata(Int8.self), metadata(Probe.self), metadata(Int.self)])
        let offsets = elements.map { memory.uint32(at: $0 + UInt(RuntimeLayout.tupleElementOffsetOffset)) }
        #expect(offsets == [0, 8, 16])
        let read = try #require(MetadataCatalog(memory: memory).elements(ofTuple: (count: Int8, probe: Probe, Int).self))
        #expect(read.map(\.label) == ["count", "probe", nil])
        #expect(read.map(\.offset) == [0, 8, 16])
    }

    @Test func onlyReferenceBuiltinsAreReadAsReferences() throws {
        let catalog = MetadataCatalog(memory: memory)
        let integer = try #require(catalog.fields(ofStruct: Int.self).first?.type)
        #expect(memory.word(at: metadata(integer)) == RuntimeLayout.opaqueMetadataKind, "Int wraps a builtin")
        #expect(!catalog.isReference(builtin: integer))
        for name in RuntimeLayout.referenceBuiltinNames {
            let builtin = try #require(_typeByName(name), "\(name) names a builtin type")
            #expect(memory.word(at: metadata(builtin)) == RuntimeLayout.opaqueMetadataKind, "\(builtin)")
            #expect(catalog.isReference(builtin: builtin), "\(builtin)")
        }
        #expect(_typeByName("Bo").map { "\($0)" } == "Builtin.NativeObject")
        #expect(_typeByName("Bb").map { "\($0)" } == "Builtin.BridgeObject")
        #expect(!catalog.isReference(builtin: try #require(_typeByName("Bp"))), "a raw pointer is not a reference")
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
