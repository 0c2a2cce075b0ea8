/// Every assumption the heap inspector makes about the Swift runtime's memory layout, in one
/// place. They hold for Swift 6 on 64-bit Linux without Objective-C interop (the stable
/// Swift ABI; see swift/include/swift/ABI/Metadata.h, HeapObject.h, RefCount.h and
/// WeakReference.h). `RuntimeLayoutTests` checks each against live objects, so a toolchain that
/// changes one fails those tests loudly instead of giving wrong graphs.
enum RuntimeLayout {
    // MARK: Addresses

    /// User-space addresses on 64-bit Linux lie below 2^47 (2^56 with five-level paging), and
    /// the first 64 KiB are never mapped. A word outside that range is not a pointer, and
    /// checking it first keeps offset arithmetic on it from overflowing.
    static let lowestAddress: UInt = 0x1_0000
    static let addressLimit: UInt = 1 << 56

    /// Whether `word` can be an address at all.
    static func isInAddressRange(_ word: UInt) -> Bool {
        word >= lowestAddress && word < addressLimit
    }

    /// Whether `word` can be the address of a heap object or of metadata: in range and
    /// pointer-aligned.
    static func isPlausibleAddress(_ word: UInt) -> Bool {
        isInAddressRange(word) && word % 8 == 0
    }

    // MARK: Heap objects (HeapObject.h)

    /// Offset of the metadata pointer in every heap object.
    static let objectMetadataOffset = 0
    /// Offset of the 64-bit reference count word in every heap object.
    static let objectRefCountOffset = 8
    /// Size of the heap object header; stored properties start at or after it.
    static let objectHeaderSize = 16

    // MARK: Metadata (Metadata.h, MetadataValues.h)

    /// Without Objective-C interop a class's metadata starts with the kind word, and it is 0
    /// (`MetadataKind::Class`).
    static let classMetadataKind: UInt = 0
    /// `MetadataKind::HeapLocalVariable`: a closure context (its captures).
    static let closureContextMetadataKind: UInt = 0x400
    /// `MetadataKind::HeapGenericLocalVariable`: a box, such as a captured `var` or an
    /// existential's out-of-line value.
    static let genericBoxMetadataKind: UInt = 0x500
    /// The value witness table pointer sits just before every type metadata's address point.
    static let valueWitnessTableOffsetBack = 8
    /// Offset of the nominal type descriptor in struct, enum and optional metadata.
    static let valueDescriptorOffset = 8
    /// Offset of the superclass pointer in class metadata.
    static let superclassOffset = 8
    /// Offset of the 32-bit instance size in class metadata.
    static let instanceSizeOffset = 24
    /// Offset of the nominal type descriptor pointer in class metadata.
    static let classDescriptorOffset = 40
    /// Offset of the 32-bit offset of the first capture in closure-context metadata.
    static let firstCaptureOffsetOffset = 8
    /// Offset of the capture descriptor pointer in closure-context metadata.
    static let captureDescriptorOffset = 16
    /// Capture descriptor: capture count (32 bits) at 0, metadata-source count at 4, binding
    /// count at 8, then one 4-byte relative pointer to a mangled type name per capture.
    /// The context holds the bindings (generic metadata and witness tables, one word each)
    /// from the first-capture offset, and the captures after them.
    static let captureCountOffset = 0
    static let captureMetadataSourceCountOffset = 4
    static let captureBindingCountOffset = 8
    static let captureRecordsOffset = 12
    /// Capture descriptors follow one another in a `swift5_capture` section: the 12-byte
    /// header, 4 bytes per capture, then 8 bytes per metadata source (two relative pointers).
    static let captureDescriptorHeaderSize = 12
    static let captureRecordSize = 4
    static let metadataSourceRecordSize = 8
    /// Generic box metadata: the 32-bit offset of the value at 8, the boxed type's metadata at 16.
    static let boxValueOffsetOffset = 8
    static let boxedTypeOffset = 16

    /// Where a box holds its value (an existential's out-of-line value, an indirect case's
    /// payload): right after the object header, at the value's alignment. So the runtime
    /// lays out the boxes it makes (`swift_allocBox`) and finds an existential's value in its
    /// box (`projectValue` in ExistentialContainer.h), and so the compiler lays out the boxes
    /// it describes as closure contexts capturing the value.
    static func boxValueOffset(alignment: Int) -> Int {
        (objectHeaderSize + alignment - 1) & ~(alignment - 1)
    }

    // MARK: Context and field descriptors (MetadataValues.h, Records.h)

    /// `ContextDescriptorKind::Class`, the low five bits of a descriptor's flags.
    static let classDescriptorKind: UInt32 = 16
    /// Mask of the kind bits in a context descriptor's flags.
    static let descriptorKindMask: UInt32 = 0x1F
    /// Offset of the relative pointer to the field descriptor in a class's, struct's or enum's
    /// type descriptor.
    static let fieldDescriptorOffset = 16
    /// Size of a field descriptor's header: mangled type name, superclass (relative
    /// pointers), kind (16 bits), record size (16 bits), field count (32 bits).
    static let fieldDescriptorHeaderSize = 16
    /// Offset of the field count in a field descriptor.
    static let fieldCountOffset = 12
    /// Offset of the record size in a field descriptor.
    static let fieldRecordSizeOffset = 10
    /// Offset of the relative pointer to the mangled type name in a field record.
    static let fieldRecordTypeNameOffset = 4
    /// Offset of the relative pointer to the field's (or enum case's) name in a field record.
    static let fieldRecordNameOffset = 8
    /// Mangled-name suffixes of reference storage (Mangling.rst): `Xw` weak, `Xo` unowned,
    /// `Xu` unowned(unsafe).
    static let weakSuffix: [UInt8] = Array("Xw".utf8)
    static let unownedSuffix: [UInt8] = Array("Xo".utf8)
    static let unownedUnsafeSuffix: [UInt8] = Array("Xu".utf8)
    /// Bytes 0x01–0x17 in a mangled name start a 4-byte relative symbolic reference, bytes
    /// 0x18–0x1F an 8-byte absolute one.
    static let relativeSymbolicReferences: ClosedRange<UInt8> = 0x01...0x17
    static let absoluteSymbolicReferences: ClosedRange<UInt8> = 0x18...0x1F

    // MARK: Reference counts (RefCount.h)

    /// Inline count bits: bit 0 pure-Swift deallocation, bits 1–31 unowned count, bit 32
    /// deiniting, bits 33–62 extra strong count (strong count − 1), bit 63 "use slow RC".
    static let unownedCountShift: UInt64 = 1
    static let unownedCountMask: UInt64 = 0x7FFF_FFFF
    static let deinitingBit: UInt64 = 1 << 32
    static let strongExtraCountShift: UInt64 = 33
    static let strongExtraCountMask: UInt64 = 0x3FFF_FFFF
    /// When bits 63 and 62 are both set, the rest of the word is the side table's address
    /// shifted right by 3.
    static let sideTableMarkBits: UInt64 = 0b11 << 62
    static let sideTableAddressShift: UInt64 = 3
    /// Side table entry: the object's address at 0, the inline count bits at 16 (the counts
    /// are 16-byte aligned), the 32-bit weak count at 24.
    static let sideTableObjectOffset = 0
    static let sideTableRefCountOffset = 16
    static let sideTableWeakCountOffset = 24

    // MARK: Weak references (WeakReference.h)

    /// A native weak reference holds the side table entry's address, untagged.
    static let weakReferenceTagMask: UInt = 0

    // MARK: Closures

    /// A thick closure value is two words: the function pointer, then the context (a heap
    /// object, or 0 for a closure that captures nothing).
    static let closureContextWordOffset = 8

    /// Function type metadata: after the kind word comes a flags word whose bits 16–23 are the
    /// calling convention (FunctionTypeFlags in MetadataValues.h). Only the Swift convention
    /// (0) is a thick (function, context) pair. A `@convention(block)` field (Foundation keeps
    /// one in DispatchWorkItem) has function metadata with no value witness table on Linux, so
    /// asking for its size would fault.
    static let functionFlagsOffset = 8
    static let functionConventionShift: UInt = 16
    static let functionConventionMask: UInt = 0xFF
    static let swiftFunctionConvention: UInt = 0

    /// A closure context names a captured closure by its lowered function type (Mangling.rst:
    /// `impl-function-type ::= type* 'I' FUNC-ATTRIBUTES '_'`), which the runtime cannot turn
    /// into type metadata. After an optional pseudo-generic `P`, escaping `e` and isolation `A`
    /// (`@isolated(any)`, as a `Task`'s operation) come the callee convention (`g` guaranteed,
    /// `x` owned, `y` unowned: a context; `t` thin: none) and an optional representation (`B`
    /// block, `C` C function, `M`, `O` and `W` methods: not a Swift closure). A thick one is laid
    /// out as a function value: the function, then the context (``closureContextWordOffset``);
    /// an `@isolated(any)` one is followed by its isolation.
    static let loweredFunctionMarker = UInt8(ascii: "I")
    static let loweredFunctionEnd = UInt8(ascii: "_")
    static let isolatedAnyAttribute = UInt8(ascii: "A")
    static let thickCalleeConventions: Set<UInt8> = Set("gxy".utf8)
    static let nonClosureRepresentations: Set<UInt8> = Set("BCMOW".utf8)

    /// Whether the plain bytes that end a mangled name end a thick lowered function type.
    static func isThickLoweredFunction(_ tail: [UInt8]) -> Bool {
        thickFunctionAttributes(tail) != nil
    }

    /// Whether the plain bytes that end a mangled name end a thick `@isolated(any)` lowered
    /// function type, whose value is longer than a function and a context.
    static func isIsolatedThickLoweredFunction(_ tail: [UInt8]) -> Bool {
        thickFunctionAttributes(tail)?.first == isolatedAnyAttribute
    }

    /// Whether the plain bytes that end a mangled name end a thick `async` lowered function
    /// type (`H` after the callee convention): its function word is an async function pointer
    /// (``asyncFunctionEntry(_:)``).
    static func isAsyncThickLoweredFunction(_ tail: [UInt8]) -> Bool {
        guard let attributes = thickFunctionAttributes(tail) else { return false }
        let afterIsolation = attributes.first == isolatedAnyAttribute ? attributes.dropFirst() : attributes
        return afterIsolation.dropFirst().contains(asyncAttribute)
    }

    static let asyncAttribute = UInt8(ascii: "H")

    /// An async function's value is the address of its `AsyncFunctionPointer`: a 32-bit
    /// relative pointer to the function's entry, then its context's size. The entry of the one
    /// at `pointer`, whose relative pointer is `relative`.
    static func asyncFunctionEntry(_ pointer: UInt, relative: Int32) -> UInt {
        UInt(bitPattern: Int(bitPattern: pointer) &+ Int(relative))
    }

    /// The attributes of the thick lowered function type whose mangled name ends in `tail`,
    /// from its isolation (if any) on; `nil` when it names none.
    private static func thickFunctionAttributes(_ tail: [UInt8]) -> ArraySlice<UInt8>? {
        guard tail.last == loweredFunctionEnd, let marker = tail.lastIndex(of: loweredFunctionMarker) else { return nil }
        var attributes = tail[(marker + 1)..<(tail.count - 1)]
        guard attributes.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
        else { return nil }
        if attributes.first == UInt8(ascii: "P") { attributes = attributes.dropFirst() }
        if attributes.first == UInt8(ascii: "e") { attributes = attributes.dropFirst() }
        let convention = attributes.first == isolatedAnyAttribute ? attributes.dropFirst() : attributes
        guard let callee = convention.first, thickCalleeConventions.contains(callee) else { return nil }
        guard convention.dropFirst().first.map({ !nonClosureRepresentations.contains($0) }) ?? true else { return nil }
        return attributes
    }

    /// The index of the depth-0 generic parameter a whole mangled type name is (Mangling.rst):
    /// `x` is the first; `q` then `z` is the first, `q_` the second, `q` N `_` the N+2nd.
    /// `nil` for any other name.
    static func genericParameterIndex(_ name: [UInt8]) -> Int? {
        if name == Array("x".utf8) || name == Array("qz".utf8) { return 0 }
        guard name.count >= 2, name.first == UInt8(ascii: "q"), name.last == UInt8(ascii: "_") else { return nil }
        let digits = name.dropFirst().dropLast()
        if digits.isEmpty { return 1 }
        guard digits.count <= 4, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let number = Int(String(decoding: digits, as: UTF8.self))
        else { return nil }
        return number + 2
    }

    /// A metadata source record (``metadataSourceRecordSize``) holds two 32-bit relative
    /// pointers: a generic parameter's mangled name, then where its metadata is
    /// (swift/RemoteInspection/MetadataSource.h), `B` and an index for one of the context's
    /// bindings.
    static let metadataSourceOffset = 4

    /// The binding index of a metadata source that is a closure binding, `nil` for any other.
    static func closureBindingIndex(_ source: [UInt8]) -> Int? {
        guard source.count >= 2, source.count <= 5, source.first == UInt8(ascii: "B") else { return nil }
        let digits = source.dropFirst()
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    // MARK: Collection storage (stdlib ContiguousArrayBuffer, SetStorage, DictionaryStorage)

    /// `Array`, `Set` and `Dictionary` values are one word: their storage object.
    static let collectionStorageWordOffset = 0
    /// `__ContiguousArrayStorageBase`: count at 16, elements from 32.
    static let arrayCountOffset = 16
    static let arrayElementsOffset = 32
    /// `__RawSetStorage` / `__RawDictionaryStorage`: count at 16, the bucket scale (log2 of
    /// the bucket count) as the byte at 32, then the occupied-bucket bitmap.
    static let hashedCountOffset = 16
    static let hashedScaleOffset = 32
    /// Set: the element pointer at 48 and the bitmap from 56.
    static let setElementsPointerOffset = 48
    static let setBitmapOffset = 56
    /// Dictionary: the key pointer at 48, the value pointer at 56 and the bitmap from 64.
    static let dictionaryKeysPointerOffset = 48
    static let dictionaryValuesPointerOffset = 56
    static let dictionaryBitmapOffset = 64

    // MARK: Decoding

    /// The strong, weak and unowned counts a reference count word, and the side table it may
    /// point to, encode; the same numbers `_getRetainCount`, `_getWeakRetainCount` and
    /// `_getUnownedRetainCount` report, without the temporaries their calls add.
    static func counts(inline bits: UInt64, weak: UInt32) -> (strong: Int, weak: Int, unowned: Int) {
        (
            strong: Int((bits >> strongExtraCountShift) & strongExtraCountMask) + 1,
            weak: Int(weak),
            unowned: Int((bits >> unownedCountShift) & unownedCountMask)
        )
    }

    /// The side table address a reference count word holds, or `nil` for inline counts.
    static func sideTable(inRefCount bits: UInt64) -> UInt? {
        guard bits & sideTableMarkBits == sideTableMarkBits else { return nil }
        return UInt((bits & ~sideTableMarkBits) << sideTableAddressShift)
    }
}

extension RuntimeLayout {
    // MARK: Type metadata kinds (MetadataKind.def)

    static let structMetadataKind: UInt = 0x200
    static let enumMetadataKind: UInt = 0x201
    static let optionalMetadataKind: UInt = 0x202
    static let tupleMetadataKind: UInt = 0x301
    static let functionMetadataKind: UInt = 0x302
    static let existentialMetadataKind: UInt = 0x303
    static let metatypeMetadataKind: UInt = 0x304
    static let existentialMetatypeMetadataKind: UInt = 0x306
    /// `MetadataKind::Opaque`: builtin types, such as `Builtin.Int64` inside `Int` or
    /// `Builtin.BridgeObject` inside `String`.
    static let opaqueMetadataKind: UInt = 0x300
    /// `MetadataKind::ErrorObject`: the box an `any Error` value points to.
    static let errorBoxMetadataKind: UInt = 0x501

    /// Mangled names of the builtin types whose value is a reference (Mangling.rst):
    /// `Builtin.NativeObject`, `Builtin.UnknownObject` and `Builtin.BridgeObject`.
    static let referenceBuiltinNames = ["Bo", "BO", "Bb"]
    /// Mangled name of `Builtin.RawUnsafeContinuation`, an `UnsafeContinuation`'s value: the
    /// address of the task suspended on it, which it does not retain.
    static let continuationBuiltinName = "Bc"

    // MARK: Value witness tables (ValueWitness.def, Metadata.h TargetValueWitnessTable)

    /// A value witness table holds eight function pointers, then the size and the stride
    /// (one word each), then the 32-bit flags.
    static let valueWitnessFunctionCount = 8
    static let valueWitnessSizeOffset = 64
    static let valueWitnessStrideOffset = 72
    static let valueWitnessFlagsOffset = 80
    /// `ValueWitnessFlags::AlignmentMask`: the value's alignment minus one.
    static let alignmentMask: UInt32 = 0xFF
    /// `ValueWitnessFlags::IsNonInline`: the value does not fit an existential's three-word
    /// inline buffer, so an existential holds it in a box.
    static let isNonInlineFlag: UInt32 = 0x0002_0000
    /// Value witness flag: the type is not plain data (copying it retains something).
    static let isNonPODFlag: UInt32 = 0x0001_0000
    /// `ValueWitnessFlags::HasEnumWitnesses`: the table goes on with the enum value witnesses.
    static let hasEnumWitnessesFlag: UInt32 = 0x0020_0000
    /// `EnumValueWitnessTable`: `getEnumTag(value, metadata) -> UInt32` right after the
    /// flags and the 32-bit extra inhabitant count, then
    /// `destructiveProjectEnumData(value, metadata)`.
    static let getEnumTagOffset = 88
    static let destructiveProjectEnumDataOffset = 96

    // MARK: Enums (Metadata.h TargetEnumDescriptor, Records.h FieldRecordFlags)

    /// `ContextDescriptorFlags::IsGeneric`: the descriptor has a generic context, so its
    /// metadata carries generic arguments.
    static let genericDescriptorFlag: UInt32 = 0x80
    /// Generic arguments of struct and enum metadata follow the kind and descriptor words.
    static let valueGenericArgumentsOffset = 16
    /// Enum descriptor: the payload case count in the low 24 bits of the 32-bit word at 20,
    /// the empty case count at 24. Case tags number the payload cases first, then the empty
    /// ones, in declaration order; the field descriptor lists the cases in that order.
    static let enumPayloadCaseCountOffset = 20
    static let enumPayloadCaseCountMask: UInt32 = 0x00FF_FFFF
    static let enumEmptyCaseCountOffset = 24
    /// `FieldRecordFlags::IsIndirectCase`, in the 32-bit flags at the start of a field record:
    /// the case's payload is a box.
    static let indirectCaseFlag: UInt32 = 0x1

    // MARK: Existentials (Metadata.h TargetExistentialTypeMetadata, MetadataValues.h)

    /// Offset of the 32-bit `ExistentialTypeFlags` in existential type metadata.
    static let existentialFlagsOffset = 8
    /// `ExistentialTypeFlags::ClassConstraintMask`: set when any type can conform, clear for a
    /// class-bound existential (one word: the reference, then the witness tables).
    static let existentialAnyTypeFlag: UInt32 = 0x8000_0000
    /// `ExistentialTypeFlags::SpecialProtocolMask`; `SpecialProtocol::Error` is 1. An `Error`
    /// existential is one word: its box.
    static let existentialSpecialProtocolMask: UInt32 = 0x3F00_0000
    static let existentialSpecialProtocolShift: UInt32 = 24
    static let errorSpecialProtocol: UInt32 = 1
    /// `MetadataKind::ExtendedExistential` (`any P<Int>`): the shape at 8, whose 32-bit flags
    /// (`ExtendedExistentialTypeShapeFlags`) start with the special kind in the low byte:
    /// 0 an opaque existential, 1 a class-bound one, stored as the plain kinds are.
    static let extendedExistentialMetadataKind: UInt = 0x307
    static let extendedExistentialShapeOffset = 8
    static let shapeSpecialKindMask: UInt32 = 0xFF
    static let shapeOpaqueKind: UInt32 = 0
    static let shapeClassKind: UInt32 = 1
    /// An opaque existential: a three-word buffer holding the value inline (or, in its first
    /// word, the box holding it), then the value's type metadata.
    static let existentialTypeOffset = 24

    // MARK: Error boxes (ErrorObject.h SwiftError, without Objective-C interop)

    /// The value's type metadata at 16 (the `Error` witness table at 24); the value follows
    /// at 32, rounded up to its alignment.
    static let errorBoxTypeOffset = 16
    static let errorBoxHeaderSize = 32

    // MARK: Tuples (Metadata.h TargetTupleTypeMetadata)

    /// The element count (one word) at 8, the labels (a C string of space-terminated labels,
    /// or null) at 16, then one 16-byte element per element: its type metadata, then its
    /// 32-bit offset (the rest of the word is padding, not always zero).
    static let tupleElementCountOffset = 8
    static let tupleLabelsOffset = 16
    static let tupleElementsOffset = 24
    static let tupleElementStride = 16
    static let tupleElementOffsetOffset = 8
}

extension RuntimeLayout {
    // MARK: glibc malloc chunks (malloc/malloc.c)

    // Swift objects, closure contexts and boxes are malloc allocations. glibc puts a chunk
    // header before each: the previous chunk's size (used only while that chunk is free), then
    // this chunk's size with three flag bits. `malloc_usable_size` is computed from the chunk's
    // size word and the next chunk's, and the inspector computes it the same way from words it
    // read safely rather than calling malloc on a guessed pointer.

    /// The user pointer lies this far into its chunk, 16-byte aligned.
    static let chunkHeaderSize: UInt = 16
    static let mallocAlignment: UInt = 16
    /// Offset of the size word in a chunk.
    static let chunkSizeOffset: UInt = 8
    /// The smallest chunk malloc hands out.
    static let minimumChunkSize: UInt = 32
    /// The flag bits of the size word: previous chunk in use (bit 0), mmapped (bit 1), not in
    /// the main arena (bit 2).
    static let chunkFlagBits: UInt = 0x7
    static let chunkPreviousInUseBit: UInt = 0x1
    static let chunkMmappedBit: UInt = 0x2
    /// An mmapped chunk's usable size is its size minus its header.
    static let mmappedChunkOverhead: UInt = 16
    /// An in-use chunk's usable size is its size minus its size word: its data runs on into the
    /// next chunk's first word, which holds a size only while this chunk is free.
    static let inUseChunkOverhead: UInt = 8
}

extension RuntimeLayout {
    // MARK: Type records and nominal type descriptors (Metadata.h, MetadataValues.h)

    /// A `swift5_type_metadata` record is a 32-bit relative pointer whose low two bits say
    /// what it points to: a type descriptor (0), or a slot holding one (1); 2 and 3 are
    /// Objective-C class references.
    static let directTypeDescriptorRecord: Int32 = 0
    static let indirectTypeDescriptorRecord: Int32 = 1

    /// `ContextDescriptorKind::Struct` and `::Enum`.
    static let structDescriptorKind: UInt32 = 17
    static let enumDescriptorKind: UInt32 = 18
    /// The class descriptor's kind-specific flag (bit 13 of the upper half) that says its
    /// superclass is resilient, so the generic arguments' offset is stored at run time.
    static let resilientSuperclassDescriptorFlag: UInt32 = 1 << (16 + 13)
    /// Class descriptor: the relative pointer to the stored metadata bounds (resilient
    /// superclass) or the metadata's negative size at 24, its positive size in words at 28,
    /// the number of immediate members at 32; the generic context header follows the 44-byte
    /// descriptor. `StoredClassMetadataBounds` starts with the immediate members' offset in
    /// bytes.
    static let classMetadataBoundsOffset = 24
    static let classPositiveSizeOffset = 28
    static let classImmediateMemberCountOffset = 32
    static let classGenericHeaderOffset = 44
    /// Struct and enum descriptors are 28 bytes; the generic context header follows.
    static let valueGenericHeaderOffset = 28
    /// Generic context header: instantiation cache and pattern (relative pointers), then the
    /// parameter count (16 bits) at 8; one parameter descriptor byte per parameter follows
    /// the 16-byte header.
    static let genericParameterCountOffset = 8
    static let genericHeaderSize = 16
    /// A generic parameter descriptor byte: the kind in the low six bits (0 a type, 1 a type
    /// pack, 2 a value), and 0x80 when the parameter is a key argument stored in the metadata.
    static let genericParameterKindMask: UInt8 = 0x3F
    static let typeGenericParameterKind: UInt8 = 0
    static let keyArgumentFlag: UInt8 = 0x80

}

extension RuntimeLayout {
    // MARK: Tasks (swift/include/swift/ABI/Task.h, MetadataValues.h; Concurrency/Task.cpp)

    // A `Task` value holds its `AsyncTask`, a heap object with one metadata all tasks share.
    // An unstructured task is one malloc allocation: the task's header, its future fragment
    // (the wait queue, the result's type, the error, then the result's storage), the prefix
    // of its first async context (the result's address, the entry point, the closure context,
    // the error's address), then that context. The task holds its closure's context from its
    // creation until its closure returns, and one reference to itself while it runs.

    /// `MetadataKind::Task`.
    static let taskMetadataKind: UInt = 0x502
    /// Offset of the 32-bit `JobFlags` in a task.
    static let taskFlagsOffset = 32
    /// `JobFlags` bits: a child task (24), a future (25), a task group's child (26), an
    /// `async let` task (28). Only a future that is none of the others, an unstructured task,
    /// is read: the others live in their parent's memory, laid out with more fragments.
    static let taskIsChildFlag: UInt32 = 1 << 24
    static let taskIsFutureFlag: UInt32 = 1 << 25
    static let taskIsGroupChildFlag: UInt32 = 1 << 26
    static let taskIsAsyncLetFlag: UInt32 = 1 << 28
    /// `sizeof(AsyncTask)`: an unstructured task's future fragment starts here.
    static let taskHeaderSize = 208
    /// The future fragment: its wait queue word, whose low two bits are the status (0 while
    /// the task runs, 1 or 2 once it has completed), then the result's type metadata; the
    /// result's storage follows the fragment's 24 bytes at the result's alignment.
    static let futureWaitQueueOffset = 0
    static let futureStatusMask: UInt = 0x3
    static let futureRunningStatus: UInt = 0
    static let futureResultTypeOffset = 8
    static let futureFragmentSize = 24
    /// `FutureAsyncContextPrefix`: four words ending where the first async context starts (the
    /// header's end, 16-byte aligned); the closure context is its third word.
    static let futureContextPrefixSize = 32
    static let asyncContextAlignment = 16
    static let closureContextPrefixOffset = 16

    /// The offset of a running unstructured task's closure context, for a result of `size`
    /// bytes aligned to `alignment`.
    static func taskClosureContextOffset(resultSize size: Int, alignment: Int) -> Int {
        let storage = align(taskHeaderSize + futureFragmentSize, to: alignment)
        let contextStart = align(storage + size + futureContextPrefixSize, to: asyncContextAlignment)
        return contextStart - futureContextPrefixSize + closureContextPrefixOffset
    }

    private static func align(_ offset: Int, to alignment: Int) -> Int {
        (offset + alignment - 1) & ~(alignment - 1)
    }
}
