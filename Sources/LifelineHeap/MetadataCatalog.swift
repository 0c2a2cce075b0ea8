@_spi(Reflection) import Swift

/// Validated metadata: the only place a word read from memory becomes an `Any.Type`.
///
/// A word is treated as class metadata only after its kind, descriptor, instance size and
/// whole superclass chain check out; closure-context and box metadata only after their kind
/// does. Metadata is never freed, so a validated pointer stays valid: what checked out is
/// cached for the catalog's lifetime, across inspections (``begin(with:)``), and only a
/// rejection is forgotten between them, since a word that was not metadata then may be
/// metadata the runtime made since.
/// It also reads what the walk needs to read a value by its type: a struct's fields, an
/// enum's cases in tag order, a tuple's elements, how an existential stores its value.
final class MetadataCatalog {
    enum HeapKind {
        case instance(ClassLayout)
        /// A closure context: its generic bindings (type metadata, then witness tables, one
        /// word each) from `bindings`, and its captures, in order, from `firstCapture`.
        case closureContext(bindings: Int, firstCapture: Int, captures: [Capture])
        /// A generic box (a captured `var`, an existential's out-of-line value) holding a
        /// value of `boxed` at `offset`.
        case box(offset: Int, boxed: Any.Type)
        /// The box of an `any Error` value; each box names its value's type itself.
        case errorBox
        /// A Swift concurrency task (``RuntimeLayout/taskMetadataKind``): each task's layout is
        /// its own (``HeapWalk/taskLayout(at:)``).
        case task
    }

    /// One case of an enum.
    struct EnumCase {
        let name: String
        /// The paths through the case: a path, `.` and the name.
        let paths: PathJoins
        /// The payload's type; `nil` for an empty case, or when it could not be resolved.
        let payload: Any.Type?
        /// Whether the payload lives in a box (an `indirect` case).
        let isIndirect: Bool
    }

    /// One element of a tuple.
    struct TupleElement {
        /// The element's label, or `nil` when it has none.
        let label: String?
        let offset: Int
        let type: Any.Type
    }

    /// How an existential stores its value.
    enum ExistentialRepresentation {
        /// A class reference in the first word.
        case classReference
        /// An error box in the first word.
        case errorBox
        /// The value inline in a three-word buffer, or in a box the first word points to, and
        /// the value's type metadata after the buffer.
        case opaque
    }

    /// One value a closure context holds.
    struct Capture {
        /// The captured value's type, or `nil` when it needs the context's generic arguments
        /// or is a captured closure.
        let type: Any.Type?
        /// The capture's declared ownership (`[weak x]` is weak, `[unowned x]` unowned).
        let ownership: ReferenceOwnership
        /// Whether the capture is a closure: a function and its context, two words.
        let isThickFunction: Bool
        /// Whether the closure is `@isolated(any)`: its isolation follows the two words.
        let isIsolatedFunction: Bool
        /// Whether the closure is `async`: its function word is an async function pointer.
        let isAsyncFunction: Bool
        /// When the capture's type is one of the closure's generic parameters, whose metadata
        /// the context keeps among its bindings: that binding's index.
        let binding: Int?
    }

    /// One stored property of a struct.
    struct StructField {
        let name: String
        /// The paths through the field: a path, `.` and the name.
        let paths: PathJoins
        let offset: Int
        let type: Any.Type
        /// The declared ownership, from the struct's field descriptor (strong when it could
        /// not be read).
        let ownership: ReferenceOwnership
    }

    /// The metadata of the builtin types whose value is a reference.
    private static let referenceBuiltins = Set(
        RuntimeLayout.referenceBuiltinNames.compactMap { _typeByName($0) }.map { unsafeBitCast($0, to: UInt.self) }
    )
    /// The metadata of `Builtin.RawUnsafeContinuation`.
    private static let continuationBuiltin = _typeByName(RuntimeLayout.continuationBuiltinName).map { unsafeBitCast($0, to: UInt.self) }

    // The caches are read and written only under the inspector's lock, by one walk at a time,
    // and no access to one overlaps another: the runtime's exclusivity checks on them were 3 %
    // of a warm walk.
    @exclusivity(unchecked) private var memory: ProcessMemory
    @exclusivity(unchecked) private var cache = AddressTable<HeapKind>()
    /// The last kinds ``heapKind(metadata:)`` found, by a few bits of their metadata's address:
    /// most words an inspection follows have one of a few metadata, and a look-up here costs
    /// no hashing.
    @exclusivity(unchecked) private var recentKinds = [(metadata: UInt, kind: HeapKind)?](repeating: nil, count: 64)
    /// Words that did not check out as heap metadata, in this inspection.
    @exclusivity(unchecked) private var rejected = AddressTable<Void>()
    /// Generic arguments already proven to be type metadata. Type metadata is never freed, so
    /// a proof holds for the whole inspection, and a type nested in many others (a pipeline's
    /// upstream type, repeated in every later operator's type) is checked once.
    @exclusivity(unchecked) private var genuineArguments = AddressTable<Void>()
    /// The words that checked out as type metadata (``type(metadata:)``).
    @exclusivity(unchecked) private var typeMetadata = AddressTable<Void>()
    @exclusivity(unchecked) private var structs = AddressTable<[StructField]>()
    @exclusivity(unchecked) private var referenceStructFields = AddressTable<[StructField]>()
    @exclusivity(unchecked) private var shapes = AddressTable<CollectionShape?>()
    @exclusivity(unchecked) private var holdsReferences = AddressTable<Bool>()
    @exclusivity(unchecked) private var optionalClassReferences = AddressTable<Bool>()
    @exclusivity(unchecked) private var enums = AddressTable<[EnumCase]?>()
    @exclusivity(unchecked) private var enumWitnesses = AddressTable<EnumWitnesses?>()
    @exclusivity(unchecked) private var tuples = AddressTable<[TupleElement]?>()

    /// The paths through a closure: a path and ` (closure)`.
    let closurePaths = PathJoins(suffix: " (closure)")

    /// The kind word of the metadata of each value type a walk scanned: metadata is never
    /// freed, and its kind never changes.
    @exclusivity(unchecked) private var kinds = AddressTable<UInt>()

    init(memory: ProcessMemory) {
        self.memory = memory
    }

    /// The kind of `type`'s metadata (a type the runtime handed out, or one ``type(metadata:)``
    /// validated), read once.
    func kind(of type: Any.Type) -> UInt? {
        let metadata = unsafeBitCast(type, to: UInt.self)
        if let known = kinds[metadata] { return known }
        guard let kind = memory.word(at: metadata) else { return nil }
        kinds[metadata] = kind
        return kind
    }

    /// Starts an inspection that reads `memory`: keeps what checked out in earlier ones and
    /// forgets what did not.
    func begin(with memory: ProcessMemory) {
        self.memory = memory
        rejected.removeAll()
    }

    /// The stored properties of a struct type (metadata the runtime handed out, never a word
    /// read from memory).
    func fields(ofStruct type: Any.Type) -> [StructField] {
        let metadata = unsafeBitCast(type, to: UInt.self)
        if let known = structs[metadata] { return known }
        let declared = memory.word(at: metadata + UInt(RuntimeLayout.valueDescriptorOffset))
            .flatMap { declaredFields(descriptor: $0) } ?? []
        var fields: [StructField] = []
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 0b10)) { name, offset, fieldType, _ in  // ignoreUnknown
            let fieldName = String(cString: name)
            let index = fields.count
            let ownership = index < declared.count && declared[index].name == fieldName ? declared[index].ownership : .strong
            fields.append(StructField(name: fieldName, paths: PathJoins(suffix: "." + fieldName), offset: offset, type: fieldType, ownership: ownership))
            return true
        }
        memory.forgetCopies()  // the field types' metadata may be new
        // A struct whose one field is a native object or a continuation (a `Task`'s `_task`, an
        // `UnsafeContinuation`'s `context`) is that reference: its field adds nothing to the path.
        if fields.count == 1, let only = fields.first, isReference(builtin: only.type) || isContinuation(builtin: only.type) {
            fields = [StructField(name: only.name, paths: PathJoins(suffix: ""), offset: only.offset, type: only.type, ownership: only.ownership)]
        }
        structs[metadata] = fields
        return fields
    }

    /// The fields of a struct type that can hold a reference (``mayHoldReferences(_:)``).
    func referenceFields(ofStruct type: Any.Type) -> [StructField] {
        let metadata = unsafeBitCast(type, to: UInt.self)
        if let known = referenceStructFields[metadata] { return known }
        let fields = fields(ofStruct: type).filter { $0.ownership != .strong || mayHoldReferences($0.type) }
        referenceStructFields[metadata] = fields
        return fields
    }

    /// Whether a value of `type` (metadata the runtime handed out) can hold a reference the
    /// walk follows: `false` for plain data (integers, floating point, raw pointers, enums
    /// without payloads, and structs, enums and tuples of those), `true` for anything else,
    /// `unowned(unsafe)` references included (plain data to the runtime, as in `Unmanaged`).
    func mayHoldReferences(_ type: Any.Type) -> Bool {
        let metadata = unsafeBitCast(type, to: UInt.self)
        if let known = holdsReferences[metadata] { return known }
        holdsReferences[metadata] = true  // while it is worked out: a type that contains itself
        let holds = checkHoldsReferences(type, metadata: metadata)
        holdsReferences[metadata] = holds
        return holds
    }

    private func checkHoldsReferences(_ type: Any.Type, metadata: UInt) -> Bool {
        guard let flags = valueWitnessFlags(of: type), flags & RuntimeLayout.isNonPODFlag == 0,
              let kind = memory.word(at: metadata)
        else { return true }
        switch kind {
        case RuntimeLayout.opaqueMetadataKind:
            return isReference(builtin: type) || isContinuation(builtin: type)
        case RuntimeLayout.structMetadataKind:
            return fields(ofStruct: type).contains { $0.ownership != .strong || mayHoldReferences($0.type) }
        case RuntimeLayout.enumMetadataKind, RuntimeLayout.optionalMetadataKind:
            guard let cases = cases(ofEnum: type) else { return true }
            return cases.contains { $0.isIndirect || $0.payload.map(mayHoldReferences) ?? false }
        case RuntimeLayout.tupleMetadataKind:
            return elements(ofTuple: type)?.contains { mayHoldReferences($0.type) } ?? true
        default:
            return true
        }
    }

    /// The shape of a collection type, or `nil` for any other type (``CollectionShape``).
    func collectionShape(of type: Any.Type) -> CollectionShape? {
        let metadata = unsafeBitCast(type, to: UInt.self)
        if let known = shapes[metadata] { return known }
        let shape = CollectionShape(type)
        shapes[metadata] = shape
        return shape
    }

    /// The cases of an enum or optional type, in tag order (payload cases, then empty cases,
    /// each in declaration order), with their payload types resolved in the type's generic
    /// context; `nil` when its field descriptor cannot be read or does not list the cases in
    /// that order.
    func cases(ofEnum type: Any.Type) -> [EnumCase]? {
        let metadata = unsafeBitCast(type, to: UInt.self)
        if let known = enums[metadata] { return known }
        let cases = readCases(metadata)
        enums[metadata] = cases
        return cases
    }

    /// Whether `type` is `Optional` of a class: stored as the reference, `nil` as null.
    func isOptionalClassReference(_ type: Any.Type) -> Bool {
        let metadata = unsafeBitCast(type, to: UInt.self)
        if let known = optionalClassReferences[metadata] { return known }
        guard let payload = cases(ofEnum: type)?.first?.payload else { return false }
        let isReference = memory.word(at: unsafeBitCast(payload, to: UInt.self)) == RuntimeLayout.classMetadataKind
        optionalClassReferences[metadata] = isReference
        return isReference
    }

    /// The witnesses that read an enum or optional value's case.
    func witnesses(ofEnum type: Any.Type) -> EnumWitnesses? {
        let metadata = unsafeBitCast(type, to: UInt.self)
        if let known = enumWitnesses[metadata] { return known }
        let witnesses = EnumWitnesses(of: type, in: memory)
        enumWitnesses[metadata] = witnesses
        return witnesses
    }

    /// The elements of a tuple type, with their types checked as metadata.
    func elements(ofTuple type: Any.Type) -> [TupleElement]? {
        let metadata = unsafeBitCast(type, to: UInt.self)
        if let known = tuples[metadata] { return known }
        let elements = readElements(metadata)
        tuples[metadata] = elements
        return elements
    }

    /// How values of an existential type (plain or extended) are stored, from its flags;
    /// `nil` for a representation the inspector does not read.
    func representation(ofExistential type: Any.Type) -> ExistentialRepresentation? {
        let metadata = unsafeBitCast(type, to: UInt.self)
        if memory.word(at: metadata) == RuntimeLayout.extendedExistentialMetadataKind {
            guard let shape = memory.word(at: metadata + UInt(RuntimeLayout.extendedExistentialShapeOffset)),
                  let flags = memory.uint32(at: shape)
            else { return nil }
            switch flags & RuntimeLayout.shapeSpecialKindMask {
            case RuntimeLayout.shapeOpaqueKind: return .opaque
            case RuntimeLayout.shapeClassKind: return .classReference
            default: return nil
            }
        }
        guard let flags = memory.uint32(at: metadata + UInt(RuntimeLayout.existentialFlagsOffset)) else { return nil }
        let special = (flags & RuntimeLayout.existentialSpecialProtocolMask) >> RuntimeLayout.existentialSpecialProtocolShift
        if special == RuntimeLayout.errorSpecialProtocol { return .errorBox }
        return flags & RuntimeLayout.existentialAnyTypeFlag == 0 ? .classReference : .opaque
    }

    /// Whether a builtin (opaque) type's value is a reference: `Builtin.NativeObject`,
    /// `Builtin.UnknownObject` or `Builtin.BridgeObject`, not an integer or a raw pointer.
    func isReference(builtin type: Any.Type) -> Bool {
        Self.referenceBuiltins.contains(unsafeBitCast(type, to: UInt.self))
    }

    /// Whether a builtin (opaque) type is `Builtin.RawUnsafeContinuation`: its value is the
    /// task suspended on the continuation, a reference the runtime does not count.
    func isContinuation(builtin type: Any.Type) -> Bool {
        Self.continuationBuiltin == unsafeBitCast(type, to: UInt.self)
    }

    /// The type `metadata` (a word read from memory) is metadata of, once it checks out as
    /// type metadata the inspector can walk.
    func type(metadata: UInt) -> Any.Type? {
        isTypeMetadata(metadata) ? unsafeBitCast(metadata, to: Any.Type.self) : nil
    }

    /// The value witness flags of `type` (metadata the runtime handed out or that checked out
    /// as type metadata): alignment, whether it fits an existential's inline buffer.
    func valueWitnessFlags(of type: Any.Type) -> UInt32? {
        let metadata = unsafeBitCast(type, to: UInt.self)
        guard let witnesses = memory.word(at: metadata - UInt(RuntimeLayout.valueWitnessTableOffsetBack)),
              RuntimeLayout.isPlausibleAddress(witnesses)
        else { return nil }
        return memory.uint32(at: witnesses + UInt(RuntimeLayout.valueWitnessFlagsOffset))
    }

    /// What the heap object whose metadata pointer is `metadata` is, or `nil` when `metadata`
    /// is not metadata the inspector can trust.
    func heapKind(metadata: UInt) -> HeapKind? {
        let way = Int((metadata >> 4) & 63)
        if let recent = recentKinds[way], recent.metadata == metadata { return recent.kind }
        if let cached = cache[metadata] {
            recentKinds[way] = (metadata, cached)
            return cached
        }
        guard !rejected.contains(metadata) else { return nil }
        guard let kind = classify(metadata) else {
            rejected.insert(metadata)
            return nil
        }
        cache[metadata] = kind
        return kind
    }

    private func classify(_ metadata: UInt) -> HeapKind? {
        guard RuntimeLayout.isPlausibleAddress(metadata), let kind = memory.word(at: metadata) else { return nil }
        switch kind {
        case RuntimeLayout.classMetadataKind:
            return classLayout(metadata).map { .instance($0) }
        case RuntimeLayout.closureContextMetadataKind:
            guard let offset = memory.uint32(at: metadata + UInt(RuntimeLayout.firstCaptureOffsetOffset)),
                  offset >= UInt32(RuntimeLayout.objectHeaderSize), offset < 4096,
                  let (bindings, captures) = captures(metadata)
            else { return nil }
            return .closureContext(
                bindings: Int(offset), firstCapture: Int(offset) + bindings * MemoryLayout<UInt>.size, captures: captures
            )
        case RuntimeLayout.genericBoxMetadataKind:
            guard let offset = memory.uint32(at: metadata + UInt(RuntimeLayout.boxValueOffsetOffset)),
                  offset >= UInt32(RuntimeLayout.objectHeaderSize), offset < 4096,
                  let boxed = memory.word(at: metadata + UInt(RuntimeLayout.boxedTypeOffset)).flatMap(type(metadata:))
            else { return nil }
            return .box(offset: Int(offset), boxed: boxed)
        case RuntimeLayout.errorBoxMetadataKind:
            return .errorBox
        case RuntimeLayout.taskMetadataKind:
            return .task
        default:
            return nil
        }
    }

    /// Checks `metadata` and its superclasses as class metadata, then reads its fields.
    private func classLayout(_ metadata: UInt) -> ClassLayout? {
        var chain: [UInt] = []
        var current = metadata
        while current != 0 {
            guard chain.count < 64, RuntimeLayout.isPlausibleAddress(current), isClassMetadata(current) else { return nil }
            chain.append(current)
            guard let superclass = memory.word(at: current + UInt(RuntimeLayout.superclassOffset)) else { return nil }
            current = superclass
        }
        guard let size = memory.uint32(at: metadata + UInt(RuntimeLayout.instanceSizeOffset)) else { return nil }
        let type = unsafeBitCast(metadata, to: Any.Type.self)

        var ownerships: [(name: String, ownership: ReferenceOwnership)] = []
        for link in chain.reversed() {
            guard let descriptor = memory.word(at: link + UInt(RuntimeLayout.classDescriptorOffset)),
                  let fields = declaredFields(descriptor: descriptor)
            else { return nil }
            ownerships += fields
        }
        var fields: [ClassLayout.Field] = []
        let options = _EachFieldOptions(rawValue: 0b11)  // classType | ignoreUnknown
        var index = 0
        var consistent = true
        _ = _forEachField(of: type, options: options) { name, offset, fieldType, _ in
            let fieldName = String(cString: name)
            var ownership = ReferenceOwnership.strong
            if index < ownerships.count, ownerships[index].name == fieldName {
                ownership = ownerships[index].ownership
            } else {
                consistent = false
            }
            // Stored properties lie inside the instance; offsets from metadata that only
            // looks like a class's can lie anywhere. (The field's size is not asked for: a
            // `@convention(block)` field's type has no value witnesses on Linux.)
            if offset < 0 || offset > Int(size) { consistent = false }
            fields.append(ClassLayout.Field(name: fieldName, offset: offset, type: fieldType, ownership: ownership))
            index += 1
            return true
        }
        memory.forgetCopies()  // the field types' metadata may be new
        guard consistent, index == ownerships.count else { return nil }
        let typeName = _typeName(type, qualified: true)
        return ClassLayout(
            type: type, typeName: typeName, instanceSize: Int(size), fields: fields,
            referenceFields: fields.filter { $0.ownership != .strong || mayHoldReferences($0.type) }, isSystemLibrary: SystemLibrary.owns(typeName),
            collectionType: collectionType(ofStorage: metadata, typeName: typeName)
        )
    }

    /// The collection type whose storage instances of the class `metadata` named `typeName`
    /// are (``CollectionShape``), or `nil` for any other class.
    private func collectionType(ofStorage metadata: UInt, typeName: String) -> Any.Type? {
        guard typeName.hasPrefix("Swift._"), typeName.hasSuffix(">"),
              let descriptor = memory.word(at: metadata + UInt(RuntimeLayout.classDescriptorOffset)),
              let arguments = TypeDescriptor(at: descriptor, in: memory)?.genericArguments(ofMetadata: metadata, in: memory)
        else { return nil }
        let types = arguments.compactMap(type(metadata:))
        guard types.count == arguments.count else { return nil }
        return CollectionShape.collectionType(ofStorage: typeName, arguments: types)
    }

    /// The number of generic bindings before a closure context's captures, and the captures
    /// its capture descriptor lists; `nil` when it has no descriptor (reflection metadata
    /// stripped) or it cannot be read.
    private func captures(_ metadata: UInt) -> (bindings: Int, captures: [Capture])? {
        guard let descriptor = memory.word(at: metadata + UInt(RuntimeLayout.captureDescriptorOffset)), descriptor != 0,
              ReflectionRecords.isCaptureDescriptor(descriptor),
              let count = memory.uint32(at: descriptor + UInt(RuntimeLayout.captureCountOffset)), count < 256,
              let sources = memory.uint32(at: descriptor + UInt(RuntimeLayout.captureMetadataSourceCountOffset)),
              let bindings = memory.uint32(at: descriptor + UInt(RuntimeLayout.captureBindingCountOffset)), bindings < 256
        else { return nil }
        // A closure with a generic environment (bindings, or metadata sources to recover its
        // generic parameters from) names its captures' types in terms of those parameters:
        // resolving such a name without them makes the runtime abort (a dependent member type
        // such as `T.Element`), so the runtime is not asked. A capture whose type is just a
        // parameter is still read: the metadata sources say which binding holds its metadata.
        let isGeneric = sources > 0 || bindings > 0
        var bindingOf: [Int: Int] = [:]
        let records = descriptor + UInt(RuntimeLayout.captureRecordsOffset)
        let sourceRecords = records + UInt(count) * UInt(RuntimeLayout.captureRecordSize)
        for index in 0..<UInt(min(sources, 256)) {
            let record = sourceRecords + index * UInt(RuntimeLayout.metadataSourceRecordSize)
            guard let typeName = memory.relativePointer(at: record),
                  let source = memory.relativePointer(at: record + UInt(RuntimeLayout.metadataSourceOffset)),
                  let parameter = MangledName.genericParameterIndex(at: typeName, in: memory),
                  let binding = MangledName.closureBindingIndex(at: source, in: memory), binding < Int(bindings)
            else { continue }
            bindingOf[parameter] = binding
        }
        var captures: [Capture] = []
        for index in 0..<UInt(count) {
            guard let name = memory.relativePointer(at: records + index * UInt(RuntimeLayout.captureRecordSize)),
                  let ownership = MangledName.ownership(at: name, in: memory)
            else { return nil }
            let resolved = isGeneric ? nil : MangledName.type(at: name, in: memory)
            let binding = MangledName.genericParameterIndex(at: name, in: memory).flatMap { bindingOf[$0] }
            captures.append(Capture(
                type: resolved?.type, ownership: ownership,
                isThickFunction: resolved == nil && MangledName.namesThickFunction(at: name, in: memory),
                isIsolatedFunction: resolved == nil && MangledName.namesIsolatedThickFunction(at: name, in: memory),
                isAsyncFunction: resolved == nil && MangledName.namesAsyncThickFunction(at: name, in: memory),
                binding: binding
            ))
        }
        return (Int(bindings), captures)
    }

    private func readCases(_ metadata: UInt) -> [EnumCase]? {
        guard let descriptor = memory.word(at: metadata + UInt(RuntimeLayout.valueDescriptorOffset)),
              MangledName.isInImage(descriptor, memory),
              let flags = memory.uint32(at: descriptor),
              let payloadCount = memory.uint32(at: descriptor + UInt(RuntimeLayout.enumPayloadCaseCountOffset))
                .map({ $0 & RuntimeLayout.enumPayloadCaseCountMask }),
              let emptyCount = memory.uint32(at: descriptor + UInt(RuntimeLayout.enumEmptyCaseCountOffset)),
              let fieldDescriptor = memory.relativePointer(at: descriptor + UInt(RuntimeLayout.fieldDescriptorOffset)),
              let count = memory.uint32(at: fieldDescriptor + UInt(RuntimeLayout.fieldCountOffset)),
              let recordSize = memory.uint32(at: fieldDescriptor + UInt(RuntimeLayout.fieldRecordSizeOffset)).map({ $0 & 0xFFFF }),
              count < 1 << 16, count == payloadCount + emptyCount, recordSize >= 12
        else { return nil }
        let context = UnsafeRawPointer(bitPattern: descriptor)
        let arguments = flags & RuntimeLayout.genericDescriptorFlag == 0
            ? nil : UnsafeRawPointer(bitPattern: metadata + UInt(RuntimeLayout.valueGenericArgumentsOffset))
        var cases: [EnumCase] = []
        for index in 0..<count {
            let record = fieldDescriptor + UInt(RuntimeLayout.fieldDescriptorHeaderSize) + UInt(index) * UInt(recordSize)
            guard let recordFlags = memory.uint32(at: record),
                  let nameAddress = memory.relativePointer(at: record + UInt(RuntimeLayout.fieldRecordNameOffset)),
                  let name = cString(at: nameAddress)
            else { return nil }
            let typeName = memory.relativePointer(at: record + UInt(RuntimeLayout.fieldRecordTypeNameOffset))
            // Exactly the first `payloadCount` records have a payload type; otherwise the
            // records are not in tag order and no tag can be trusted to name a case.
            guard (typeName != nil) == (index < payloadCount) else { return nil }
            let payload = typeName.flatMap {
                MangledName.type(at: $0, in: memory, genericContext: context, genericArguments: arguments)?.type
            }
            cases.append(EnumCase(name: name, paths: PathJoins(suffix: "." + name), payload: payload, isIndirect: recordFlags & RuntimeLayout.indirectCaseFlag != 0))
        }
        return cases
    }

    private func readElements(_ metadata: UInt) -> [TupleElement]? {
        guard let count = memory.word(at: metadata + UInt(RuntimeLayout.tupleElementCountOffset)), count < 4096,
              let labelsAddress = memory.word(at: metadata + UInt(RuntimeLayout.tupleLabelsOffset))
        else { return nil }
        // Each label ends with a space; an unlabeled element's label is empty.
        let labels = labelsAddress == 0 ? [] : cString(at: labelsAddress)?.split(separator: " ", omittingEmptySubsequences: false) ?? []
        var elements: [TupleElement] = []
        for index in 0..<Int(count) {
            let element = metadata + UInt(RuntimeLayout.tupleElementsOffset + index * RuntimeLayout.tupleElementStride)
            guard let type = memory.word(at: element).flatMap(type(metadata:)),
                  let offset = memory.uint32(at: element + UInt(RuntimeLayout.tupleElementOffsetOffset)), offset < 1 << 24
            else { return nil }
            let label = index < labels.count && !labels[index].isEmpty ? String(labels[index]) : nil
            elements.append(TupleElement(label: label, offset: Int(offset), type: type))
        }
        return elements
    }

    /// Whether `metadata` is type metadata of a kind the inspector walks, with a value witness
    /// table that checks out: a generic argument (``isGenericArgument(_:depth:)``) whose
    /// table the compiler or the runtime made. The inspector asks the runtime for such a
    /// type's size, which goes through the value witness table, and calls an enum's tag
    /// witnesses.
    private func isTypeMetadata(_ metadata: UInt) -> Bool {
        // Metadata is never freed and its witness table never changes: an address that checked
        // out once is that metadata still (an existential's type is asked about at every walk).
        if typeMetadata.contains(metadata) { return true }
        guard RuntimeLayout.isPlausibleAddress(metadata),
              let witnesses = memory.word(at: metadata - UInt(RuntimeLayout.valueWitnessTableOffsetBack)),
              isValueWitnessTable(witnesses), isGenericArgument(metadata, depth: 0)
        else { return false }
        typeMetadata.insert(metadata)
        return true
    }

    /// Whether `witnesses` is a value witness table: one the compiler emitted in a loaded
    /// image, or one the runtime made for a generic instance or a tuple, whose function
    /// pointers (the enum witnesses too, when it has them) all lie in loaded images and whose
    /// size, stride and alignment agree.
    private func isValueWitnessTable(_ witnesses: UInt) -> Bool {
        if MangledName.isInImage(witnesses, memory) { return true }
        guard RuntimeLayout.isPlausibleAddress(witnesses),
              let size = memory.word(at: witnesses + UInt(RuntimeLayout.valueWitnessSizeOffset)),
              let stride = memory.word(at: witnesses + UInt(RuntimeLayout.valueWitnessStrideOffset)),
              let flags = memory.uint32(at: witnesses + UInt(RuntimeLayout.valueWitnessFlagsOffset))
        else { return false }
        let alignment = UInt(flags & RuntimeLayout.alignmentMask) + 1
        guard alignment <= 16, alignment & (alignment - 1) == 0, size < 1 << 24, stride >= max(size, 1),
              stride % alignment == 0, stride - size < max(alignment, 2)
        else { return false }
        var functions = (0..<RuntimeLayout.valueWitnessFunctionCount).map { $0 * MemoryLayout<UInt>.size }
        if flags & RuntimeLayout.hasEnumWitnessesFlag != 0 {
            functions += [RuntimeLayout.getEnumTagOffset, RuntimeLayout.destructiveProjectEnumDataOffset]
        }
        return functions.allSatisfy { offset in
            memory.word(at: witnesses + UInt(offset)).map { MangledName.isInImage($0, memory) } ?? false
        }
    }

    private func isClassMetadata(_ metadata: UInt, depth: Int = 0) -> Bool {
        guard memory.word(at: metadata) == RuntimeLayout.classMetadataKind,
              let size = memory.uint32(at: metadata + UInt(RuntimeLayout.instanceSizeOffset)),
              size >= UInt32(RuntimeLayout.objectHeaderSize), size < 1 << 24,
              let descriptor = memory.word(at: metadata + UInt(RuntimeLayout.classDescriptorOffset)),
              RuntimeLayout.isInAddressRange(descriptor), descriptor % 4 == 0,
              let flags = memory.uint32(at: descriptor)
        else { return false }
        return flags & RuntimeLayout.descriptorKindMask == RuntimeLayout.classDescriptorKind
            && hasGenuineGenericArguments(metadata, descriptor: descriptor, depth: depth)
    }

    /// Whether a loaded image declares `descriptor`, and each generic argument the metadata
    /// stores is type metadata. The runtime reads a generic type's arguments as types when it
    /// names the type or lists its fields, and aborts the process on one that is not: memory
    /// that only looks like metadata (freed, or forged by chance) must not get that far.
    private func hasGenuineGenericArguments(_ metadata: UInt, descriptor: UInt, depth: Int) -> Bool {
        guard let type = TypeDescriptor(at: descriptor, in: memory),
              let arguments = type.genericArguments(ofMetadata: metadata, in: memory)
        else { return false }
        return arguments.allSatisfy { isGenericArgument($0, depth: depth + 1) }
    }

    /// Whether `metadata`, a generic argument, is type metadata the runtime can name. Unlike
    /// a boxed value's type it need not have its value witnesses in an image (a tuple's or a
    /// function type's are made at run time), and its nominal type may be a C type, whose
    /// descriptor no image's type records list.
    ///
    /// Nesting is bounded only to end a loop that forged metadata could make: a real
    /// pipeline's types nest deeply, since each operator's type holds its whole upstream's
    /// (`Debounce<…>.Inner<RemoveDuplicates<…>.Inner<FlatMap<…>.Outer<ReceiveOn<…>.Inner<Sink<…>>>>>`).
    private func isGenericArgument(_ metadata: UInt, depth: Int) -> Bool {
        if genuineArguments.contains(metadata) { return true }
        guard checkGenericArgument(metadata, depth: depth) else { return false }
        genuineArguments.insert(metadata)
        return true
    }

    private func checkGenericArgument(_ metadata: UInt, depth: Int) -> Bool {
        guard depth < Self.maximumTypeNesting, RuntimeLayout.isPlausibleAddress(metadata), let kind = memory.word(at: metadata),
              let witnesses = memory.word(at: metadata - UInt(RuntimeLayout.valueWitnessTableOffsetBack)),
              RuntimeLayout.isPlausibleAddress(witnesses), hasPlausibleLayout(witnesses)
        else { return false }
        switch kind {
        case RuntimeLayout.classMetadataKind:
            return isClassMetadata(metadata, depth: depth)
        case RuntimeLayout.structMetadataKind, RuntimeLayout.enumMetadataKind, RuntimeLayout.optionalMetadataKind:
            guard let descriptor = memory.word(at: metadata + UInt(RuntimeLayout.valueDescriptorOffset)) else { return false }
            if ReflectionRecords.isTypeDescriptor(descriptor) {
                return hasGenuineGenericArguments(metadata, descriptor: descriptor, depth: depth)
            }
            // An imported C type: a descriptor in an image, of a struct or enum, not generic.
            guard MangledName.isInImage(descriptor, memory), let flags = memory.uint32(at: descriptor) else { return false }
            let descriptorKind = flags & RuntimeLayout.descriptorKindMask
            return (descriptorKind == RuntimeLayout.structDescriptorKind || descriptorKind == RuntimeLayout.enumDescriptorKind)
                && flags & RuntimeLayout.genericDescriptorFlag == 0
        case RuntimeLayout.tupleMetadataKind:
            guard let count = memory.word(at: metadata + UInt(RuntimeLayout.tupleElementCountOffset)), count < 1024,
                  let labels = memory.word(at: metadata + UInt(RuntimeLayout.tupleLabelsOffset)),
                  labels == 0 || memory.byte(at: labels) != nil
            else { return false }
            return (0..<Int(count)).allSatisfy { index in
                let element = metadata + UInt(RuntimeLayout.tupleElementsOffset + index * RuntimeLayout.tupleElementStride)
                return memory.word(at: element).map { isGenericArgument($0, depth: depth + 1) } ?? false
            }
        case RuntimeLayout.functionMetadataKind, RuntimeLayout.existentialMetadataKind, RuntimeLayout.metatypeMetadataKind,
             RuntimeLayout.existentialMetatypeMetadataKind, RuntimeLayout.extendedExistentialMetadataKind:
            return true
        default:
            return false
        }
    }

    /// How deeply generic arguments may nest before metadata is taken for forged.
    static let maximumTypeNesting = 256

    /// Whether the value witness table at `witnesses` gives a size, stride and alignment a
    /// type can have: the walk sizes values and steps through captures with them.
    private func hasPlausibleLayout(_ witnesses: UInt) -> Bool {
        guard let size = memory.word(at: witnesses + UInt(RuntimeLayout.valueWitnessSizeOffset)),
              let stride = memory.word(at: witnesses + UInt(RuntimeLayout.valueWitnessStrideOffset)),
              let flags = memory.uint32(at: witnesses + UInt(RuntimeLayout.valueWitnessFlagsOffset))
        else { return false }
        let alignmentMask = flags & RuntimeLayout.alignmentMask
        return size <= stride && stride > 0 && stride < 1 << 24 && alignmentMask & (alignmentMask + 1) == 0
    }

    /// The names and declared ownerships of the stored properties one class declares itself,
    /// from its field descriptor.
    private func declaredFields(descriptor: UInt) -> [(name: String, ownership: ReferenceOwnership)]? {
        guard RuntimeLayout.isInAddressRange(descriptor) else { return nil }
        guard let fieldDescriptor = memory.relativePointer(at: descriptor + UInt(RuntimeLayout.fieldDescriptorOffset)) else {
            return []
        }
        guard let count = memory.uint32(at: fieldDescriptor + UInt(RuntimeLayout.fieldCountOffset)),
              let recordSize = memory.uint32(at: fieldDescriptor + UInt(RuntimeLayout.fieldRecordSizeOffset)).map({ $0 & 0xFFFF }),
              count < 4096, recordSize >= 12
        else { return nil }
        var fields: [(String, ReferenceOwnership)] = []
        for index in 0..<UInt(count) {
            let record = fieldDescriptor + UInt(RuntimeLayout.fieldDescriptorHeaderSize) + index * UInt(recordSize)
            guard let nameAddress = memory.relativePointer(at: record + 8), let name = cString(at: nameAddress) else { return nil }
            var ownership = ReferenceOwnership.strong
            if let typeName = memory.relativePointer(at: record + UInt(RuntimeLayout.fieldRecordTypeNameOffset)) {
                guard let declared = MangledName.ownership(at: typeName, in: memory) else { return nil }
                ownership = declared
            }
            fields.append((name, ownership))
        }
        return fields
    }

    private func cString(at address: UInt) -> String? {
        var bytes: [UInt8] = []
        var cursor = address
        while bytes.count < 1024 {
            guard let byte = memory.byte(at: cursor) else { return nil }
            if byte == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
            cursor += 1
        }
        return nil
    }
}
