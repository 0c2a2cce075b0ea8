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
              let scanned = scan(at: address, in: memory, collectingTokens: true), scanned.referencesStayInImages,
              // Without a context the runtime cannot resolve a generic parameter, and for a
              // dependent member type such as `A.Output` inside generic arguments it aborts
              // the process ("Expected a metadata pack but got metadata") instead of failing.
              genericContext != nil || !mayNameGenericParameter(scanned.tokens),
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

    /// Whether the mangled name at `address` ends a thick `@isolated(any)` lowered function
    /// type (``RuntimeLayout/isIsolatedThickLoweredFunction(_:)``).
    static func namesIsolatedThickFunction(at address: UInt, in memory: ProcessMemory) -> Bool {
        scan(at: address, in: memory).map { RuntimeLayout.isIsolatedThickLoweredFunction($0.tail) } ?? false
    }

    /// Whether the mangled name at `address` ends a thick `async` lowered function type
    /// (``RuntimeLayout/isAsyncThickLoweredFunction(_:)``).
    static func namesAsyncThickFunction(at address: UInt, in memory: ProcessMemory) -> Bool {
        scan(at: address, in: memory).map { RuntimeLayout.isAsyncThickLoweredFunction($0.tail) } ?? false
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
    /// the loaded images, its last plain bytes (up to 16, none of a symbolic reference), and,
    /// when `collectingTokens`, all its bytes with each symbolic reference as its one marker
    /// byte (otherwise none).
    ///
    /// The bytes are walked once; the tail is read again at the end rather than kept up to date
    /// byte by byte, and the tokens are gathered only for the caller that asks the runtime.
    private static func scan(at address: UInt, in memory: ProcessMemory, collectingTokens: Bool = false)
        -> (length: Int, ownership: ReferenceOwnership, referencesStayInImages: Bool, tail: [UInt8], tokens: [UInt8])? {
        guard isInImage(address, memory) else { return nil }
        var cursor = address
        /// Where the plain bytes after the last symbolic reference start.
        var plainStart = address
        var tokens: [UInt8] = []
        var inImages = true
        for _ in 0..<4096 {
            guard let byte = memory.byte(at: cursor) else { return nil }
            switch byte {
            case 0:
                let length = Int(cursor - address)
                guard length > 0 else { return nil }
                var tail: [UInt8] = []
                tail.reserveCapacity(16)
                for plain in max(plainStart, cursor >= 16 ? cursor - 16 : 0)..<cursor {
                    guard let byte = memory.byte(at: plain) else { return nil }
                    tail.append(byte)
                }
                var ownership = ReferenceOwnership.strong
                if tail.count >= 2 {
                    let lastTwo = Array(tail[(tail.count - 2)...])
                    if lastTwo == RuntimeLayout.weakSuffix { ownership = .weak }
                    if lastTwo == RuntimeLayout.unownedSuffix { ownership = .unowned }
                    if lastTwo == RuntimeLayout.unownedUnsafeSuffix { ownership = .unownedUnsafe }
                }
                return (length, ownership, inImages, tail, tokens)
            case RuntimeLayout.relativeSymbolicReferences:
                if collectingTokens { tokens.append(byte) }
                if let target = memory.relativePointer(at: cursor + 1) {
                    inImages = inImages && isInImage(target, memory)
                } else {
                    inImages = false
                }
                cursor += 5
                plainStart = cursor
            case RuntimeLayout.absoluteSymbolicReferences:
                if collectingTokens { tokens.append(byte) }
                inImages = false
                cursor += 9
                plainStart = cursor
            default:
                if collectingTokens { tokens.append(byte) }
                cursor += 1
            }
        }
        return nil
    }

    /// Whether the mangled type name `tokens` (its symbolic references each as their marker
    /// byte) may name a generic parameter: `x` or `q…` (a parameter), or a `Q…` operator (a
    /// dependent member type, a pack, an opaque type), outside an identifier and a
    /// substitution. Identifiers are skipped the way the runtime's demangler reads them; a
    /// name it cannot follow counts as naming one, so that the runtime is not asked.
    static func mayNameGenericParameter(_ tokens: [UInt8]) -> Bool {
        let (digits, lowercase, uppercase) = (UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                                              UInt8(ascii: "A")...UInt8(ascii: "Z"))
        var index = 0
        func byte(_ offset: Int = 0) -> UInt8? { index + offset < tokens.count ? tokens[index + offset] : nil }
        func natural() -> Int? {
            var value = 0, read = false
            while let next = byte(), digits.contains(next), value < 1 << 20 {
                value = value * 10 + Int(next - UInt8(ascii: "0"))
                index += 1
                read = true
            }
            return read ? value : nil
        }
        /// Skips an identifier (Mangling.rst: `NATURAL IDENTIFIER-STRING`, `'0'` and word
        /// substitutions, `'00'` and Punycode); false when it runs past the name.
        func skipIdentifier() -> Bool {
            var wordSubstitutions = false
            if byte() == UInt8(ascii: "0") {
                index += 1
                if byte() == UInt8(ascii: "0") { index += 1 } else { wordSubstitutions = true }
            }
            repeat {
                while wordSubstitutions, let next = byte(), lowercase.contains(next) || uppercase.contains(next) {
                    index += 1
                    if uppercase.contains(next) { wordSubstitutions = false }
                }
                if byte() == UInt8(ascii: "0") {
                    index += 1
                    break
                }
                guard let length = natural(), length > 0, index + length <= tokens.count else { return false }
                index += length
            } while wordSubstitutions
            return true
        }
        while let next = byte() {
            switch next {
            case UInt8(ascii: "x"), UInt8(ascii: "q"), UInt8(ascii: "Q"):
                return true
            case UInt8(ascii: "S"):
                // A standard substitution: `S`, a repeat count, `c` for concurrency types, a letter.
                index += 1
                _ = natural()
                if byte() == UInt8(ascii: "c") { index += 1 }
                index += 1
            case UInt8(ascii: "A"):
                // A substitution: `A` and an index, or lowercase letters ending in an uppercase one.
                index += 1
                if natural() != nil || byte() == UInt8(ascii: "_") {
                    index += 1
                } else {
                    while let letter = byte(), lowercase.contains(letter) { index += 1 }
                    index += 1
                }
            case UInt8(ascii: "L"), UInt8(ascii: "B"):
                // A local declaration's discriminator, a builtin type's width: digits that
                // are not an identifier's length.
                index += 1
                if next == UInt8(ascii: "B") { index += 1 }
                _ = natural()
            case UInt8(ascii: "X"):
                // A two-letter operator: `Xw` weak, `Xx` an inout_aliasable capture, …
                index += 2
            case digits:
                guard skipIdentifier() else { return true }
            default:
                index += 1
            }
        }
        return false
    }

    /// Whether `address` lies in a file-backed, read-only mapping: a loaded image's
    /// constant data, where the compiler puts mangled names and descriptors.
    static func isInImage(_ address: UInt, _ memory: ProcessMemory) -> Bool {
        guard RuntimeLayout.isInAddressRange(address), let mapping = memory.mapping(containing: address) else { return false }
        return mapping.readable && !mapping.isHeap
    }
}
