@_spi(Reflection) import Swift

/// Validated metadata: the only place a word read from memory becomes an `Any.Type`.
///
/// A word is treated as class metadata only after its kind, descriptor, instance size and
/// whole superclass chain check out; closure-context and box metadata only after their kind
/// does. Metadata is never freed, so a validated pointer stays valid; results are cached.
final class MetadataCatalog {
    enum HeapKind {
        case instance(ClassLayout)
        /// A closure context: its captures, in order, from `firstCapture`.
        case closureContext(firstCapture: Int, captures: [Capture])
        /// A generic box (a captured `var`, an existential's out-of-line value) holding a
        /// value of `boxed` at `offset`.
        case box(offset: Int, boxed: Any.Type)
    }

    /// One value a closure context holds.
    struct Capture {
        /// The captured value's type, or `nil` when it needs the context's generic arguments.
        let type: Any.Type?
        /// The capture's declared ownership (`[weak x]` is weak, `[unowned x]` unowned).
        let ownership: ReferenceOwnership
    }

    /// One stored property of a struct.
    struct StructField {
        let name: String
        let offset: Int
        let type: Any.Type
        /// The declared ownership, from the struct's field descriptor (strong when it could
        /// not be read).
        let ownership: ReferenceOwnership
    }

    private let memory: ProcessMemory
    private var cache: [UInt: HeapKind?] = [:]
    private var structs: [UInt: [StructField]] = [:]

    init(memory: ProcessMemory) {
        self.memory = memory
    }

    /// The stored properties of a struct type (metadata the runtime handed out, never a word
    /// read from memory).
    func fields(ofStruct type: Any.Type) -> [StructField] {
        let key = unsafeBitCast(type, to: UInt.self)
        if let known = structs[key] { return known }
        let metadata = unsafeBitCast(type, to: UInt.self)
        let declared = memory.word(at: metadata + UInt(RuntimeLayout.valueDescriptorOffset))
            .flatMap { declaredFields(descriptor: $0) } ?? []
        var fields: [StructField] = []
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 0b10)) { name, offset, fieldType, _ in  // ignoreUnknown
            let fieldName = String(cString: name)
            let index = fields.count
            let ownership = index < declared.count && declared[index].name == fieldName ? declared[index].ownership : .strong
            fields.append(StructField(name: fieldName, offset: offset, type: fieldType, ownership: ownership))
            return true
        }
        memory.forgetCopies()  // the field types' metadata may be new
        structs[key] = fields
        return fields
    }

    /// What the heap object whose metadata pointer is `metadata` is, or `nil` when `metadata`
    /// is not metadata the inspector can trust.
    func heapKind(metadata: UInt) -> HeapKind? {
        if let cached = cache[metadata] { return cached }
        let kind = classify(metadata)
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
            return .closureContext(firstCapture: Int(offset) + bindings * MemoryLayout<UInt>.size, captures: captures)
        case RuntimeLayout.genericBoxMetadataKind:
            guard let offset = memory.uint32(at: metadata + UInt(RuntimeLayout.boxValueOffsetOffset)),
                  offset >= UInt32(RuntimeLayout.objectHeaderSize), offset < 4096,
                  let boxed = memory.word(at: metadata + UInt(RuntimeLayout.boxedTypeOffset)), isTypeMetadata(boxed)
            else { return nil }
            return .box(offset: Int(offset), boxed: unsafeBitCast(boxed, to: Any.Type.self))
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
        return ClassLayout(type: type, typeName: _typeName(type, qualified: true), instanceSize: Int(size), fields: fields)
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
        // such as `T.Element`), so its captures' types stay unknown.
        let isGeneric = sources > 0 || bindings > 0
        var captures: [Capture] = []
        for index in 0..<UInt(count) {
            guard let name = memory.relativePointer(at: descriptor + UInt(RuntimeLayout.captureRecordsOffset) + index * 4),
                  let ownership = MangledName.ownership(at: name, in: memory)
            else { return nil }
            let resolved = isGeneric ? nil : MangledName.type(at: name, in: memory)
            captures.append(Capture(type: resolved?.type, ownership: ownership))
        }
        return (Int(bindings), captures)
    }

    /// Whether `metadata` is type metadata of a kind the inspector walks: a class, struct,
    /// enum, optional, tuple, function or existential, whose value witness table lies in a
    /// loaded image and gives a plausible size; a nominal type's descriptor must be one a
    /// loaded image declares, and its generic arguments type metadata. The inspector asks the
    /// runtime for such a type's size, which goes through the value witness table.
    private func isTypeMetadata(_ metadata: UInt, depth: Int = 0) -> Bool {
        guard depth < 8, RuntimeLayout.isPlausibleAddress(metadata), let kind = memory.word(at: metadata),
              let witnesses = memory.word(at: metadata - UInt(RuntimeLayout.valueWitnessTableOffsetBack)),
              MangledName.isInImage(witnesses, memory), hasPlausibleLayout(witnesses)
        else { return false }
        switch kind {
        case RuntimeLayout.classMetadataKind:
            return isClassMetadata(metadata, depth: depth)
        case RuntimeLayout.structMetadataKind, RuntimeLayout.enumMetadataKind, RuntimeLayout.optionalMetadataKind:
            guard let descriptor = memory.word(at: metadata + UInt(RuntimeLayout.valueDescriptorOffset)) else { return false }
            return hasGenuineGenericArguments(metadata, descriptor: descriptor, depth: depth)
        case RuntimeLayout.tupleMetadataKind, RuntimeLayout.functionMetadataKind, RuntimeLayout.existentialMetadataKind:
            return true
        default:
            return false
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
    private func isGenericArgument(_ metadata: UInt, depth: Int) -> Bool {
        guard depth < 8, RuntimeLayout.isPlausibleAddress(metadata), let kind = memory.word(at: metadata),
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

    /// Whether the value witness table at `witnesses` gives a size, stride and alignment a
    /// type can have: the walk sizes values and steps through captures with them.
    private func hasPlausibleLayout(_ witnesses: UInt) -> Bool {
        guard let size = memory.word(at: witnesses + UInt(RuntimeLayout.valueWitnessSizeOffset)),
              let stride = memory.word(at: witnesses + UInt(RuntimeLayout.valueWitnessStrideOffset)),
              let flags = memory.uint32(at: witnesses + UInt(RuntimeLayout.valueWitnessFlagsOffset))
        else { return false }
        let alignmentMask = flags & RuntimeLayout.alignmentMaskBits
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
