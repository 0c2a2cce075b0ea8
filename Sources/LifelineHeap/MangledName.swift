/// The parts of a mangled type name the inspector reads: whether it names reference storage.
///
/// Mangled names in field descriptors can embed symbolic references (a marker byte followed
/// by a 4- or 8-byte pointer), whose bytes can look like anything, so the name is walked token
/// by token rather than searched.
enum MangledName {
    /// The ownership the mangled type name at `address` declares: weak for `…Xw`, unowned for
    /// `…Xo`, unowned(unsafe) for `…Xu`, otherwise strong. `nil` when it cannot be read.
    static func ownership(at address: UInt, in memory: ProcessMemory) -> ReferenceOwnership? {
        scan(at: address, in: memory).map(\.ownership)
    }

    /// The type the mangled name at `address` names, resolved by the runtime, and its
    /// declared ownership; `nil` when the name is not among the loaded images' reflection type
    /// names (``ReflectionRecords``), cannot be read, points outside the loaded images, or
    /// names a type that needs generic arguments it was not given.
    ///
    /// - Parameters:
    ///   - genericContext: The type descriptor the name appears in, whose generic parameters
    ///     the name may refer to.
    ///   - genericArguments: The generic argument vector of the metadata instantiating that
    ///     descriptor.
    static func type(
        at address: UInt, in memory: ProcessMemory, genericContext: UnsafeRawPointer? = nil,
        genericArguments: UnsafeRawPointer? = nil
    ) -> (type: Any.Type, ownership: ReferenceOwnership)? {
        guard ReflectionRecords.isInTypeReferences(address),
              let scanned = scan(at: address, in: memory), scanned.referencesStayInImages,
              let name = UnsafePointer<UInt8>(bitPattern: address),
              let type = _getTypeByMangledNameInContext(
                  name, UInt(scanned.length), genericContext: genericContext, genericArguments: genericArguments
              )
        else { return nil }
        memory.forgetCopies()  // the type's metadata may be new
        return (type, scanned.ownership)
    }

    /// Whether the mangled type name at `address` names a function value the runtime cannot
    /// name but whose layout is known: a lowered function type (`Ieg_` for an escaping
    /// `() -> ()`), the type a closure context gives a captured closure. Such a value is thick,
    /// a function and its context, unless its representation says otherwise
    /// (``RuntimeLayout/isThickLoweredFunction(_:)``).
    static func namesThickFunction(at address: UInt, in memory: ProcessMemory) -> Bool {
        scan(at: address, in: memory).map { RuntimeLayout.isThickLoweredFunction($0.tail) } ?? false
    }

    /// The index of the generic parameter the mangled type name at `address` is, when it is
    /// nothing else: a parameter of the outermost generic context
    /// (``RuntimeLayout/genericParameterIndex(_:)``).
    static func genericParameterIndex(at address: UInt, in memory: ProcessMemory) -> Int? {
        guard let scanned = scan(at: address, in: memory), scanned.tail.count == scanned.length else { return nil }
        return RuntimeLayout.genericParameterIndex(scanned.tail)
    }

    /// The binding index a closure's metadata source at `address` names: `B` and the index
    /// (``RuntimeLayout/closureBindingIndex(_:)``).
    static func closureBindingIndex(at address: UInt, in memory: ProcessMemory) -> Int? {
        guard let scanned = scan(at: address, in: memory), scanned.tail.count == scanned.length else { return nil }
        return RuntimeLayout.closureBindingIndex(scanned.tail)
    }

    /// The name's length, its declared ownership, whether its symbolic references stay in
    /// the loaded images, and its last plain bytes (up to 16, none of a symbolic reference).
    private static func scan(at address: UInt, in memory: ProcessMemory)
        -> (length: Int, ownership: ReferenceOwnership, referencesStayInImages: Bool, tail: [UInt8])? {
        guard isInImage(address, memory) else { return nil }
        var cursor = address
        var tail: [UInt8] = []
        var inImages = true
        for _ in 0..<4096 {
            guard let byte = memory.byte(at: cursor) else { return nil }
            switch byte {
            case 0:
                let length = Int(cursor - address)
                guard length > 0 else { return nil }
                let lastTwo = Array(tail.suffix(2))
                var ownership = ReferenceOwnership.strong
                if lastTwo == RuntimeLayout.weakSuffix { ownership = .weak }
                if lastTwo == RuntimeLayout.unownedSuffix { ownership = .unowned }
                if lastTwo == RuntimeLayout.unownedUnsafeSuffix { ownership = .unownedUnsafe }
                return (length, ownership, inImages, tail)
            case RuntimeLayout.relativeSymbolicReferences:
                if let target = memory.relativePointer(at: cursor + 1) {
                    inImages = inImages && isInImage(target, memory)
                } else {
                    inImages = false
                }
                cursor += 5
                tail = []
            case RuntimeLayout.absoluteSymbolicReferences:
                inImages = false
                cursor += 9
                tail = []
            default:
                tail = Array((tail + [byte]).suffix(16))
                cursor += 1
            }
        }
        return nil
    }

    /// Whether `address` lies in a file-backed, read-only mapping: a loaded image's
    /// constant data, where the compiler puts mangled names and descriptors.
    static func isInImage(_ address: UInt, _ memory: ProcessMemory) -> Bool {
        guard RuntimeLayout.isInAddressRange(address), let mapping = memory.mapping(containing: address) else { return false }
        return mapping.readable && !mapping.isHeap
    }
}
