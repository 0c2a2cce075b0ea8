/// The context descriptor of a class, struct or enum that a loaded image declares
/// (``ReflectionRecords``), read for what validating metadata needs: where the metadata keeps
/// its generic arguments.
struct TypeDescriptor {
    let address: UInt
    let flags: UInt32

    /// The descriptor at `address`, or `nil` when no loaded image declares one there.
    init?(at address: UInt, in memory: ProcessMemory) {
        guard ReflectionRecords.isTypeDescriptor(address), let flags = memory.uint32(at: address) else { return nil }
        self.address = address
        self.flags = flags
    }

    var kind: UInt32 { flags & RuntimeLayout.descriptorKindMask }

    /// The generic arguments the metadata at `metadata` stores, one type metadata pointer each
    /// (none for a type that is not generic); `nil` when they cannot be read or the type has
    /// parameters other than types (packs, values), whose arguments are not type metadata.
    func genericArguments(ofMetadata metadata: UInt, in memory: ProcessMemory) -> [UInt]? {
        guard flags & RuntimeLayout.genericDescriptorFlag != 0 else { return [] }
        let header: UInt
        let argumentOffset: Int
        switch kind {
        case RuntimeLayout.classDescriptorKind:
            header = address + UInt(RuntimeLayout.classGenericHeaderOffset)
            if flags & RuntimeLayout.resilientSuperclassDescriptorFlag != 0 {
                guard let bounds = memory.relativePointer(at: address + UInt(RuntimeLayout.classMetadataBoundsOffset)),
                      let offset = memory.word(at: bounds).map({ Int(bitPattern: $0) }), offset > 0, offset < 1 << 20
                else { return nil }
                argumentOffset = offset
            } else {
                guard let positiveSize = memory.uint32(at: address + UInt(RuntimeLayout.classPositiveSizeOffset)),
                      let members = memory.uint32(at: address + UInt(RuntimeLayout.classImmediateMemberCountOffset)),
                      positiveSize >= members, positiveSize < 1 << 16
                else { return nil }
                argumentOffset = Int(positiveSize - members) * MemoryLayout<UInt>.size
            }
        case RuntimeLayout.structDescriptorKind, RuntimeLayout.enumDescriptorKind:
            header = address + UInt(RuntimeLayout.valueGenericHeaderOffset)
            argumentOffset = RuntimeLayout.valueGenericArgumentsOffset
        default:
            return nil
        }
        guard let parameters = memory.uint32(at: header + UInt(RuntimeLayout.genericParameterCountOffset))
            .map({ Int($0 & 0xFFFF) }), parameters > 0, parameters < 64
        else { return nil }
        var arguments: [UInt] = []
        for index in 0..<parameters {
            guard let parameter = memory.byte(at: header + UInt(RuntimeLayout.genericHeaderSize + index)),
                  parameter & RuntimeLayout.genericParameterKindMask == RuntimeLayout.typeGenericParameterKind
            else { return nil }
            guard parameter & RuntimeLayout.keyArgumentFlag != 0 else { continue }
            guard let argument = memory.word(at: metadata + UInt(argumentOffset + arguments.count * MemoryLayout<UInt>.size))
            else { return nil }
            arguments.append(argument)
        }
        return arguments
    }
}
