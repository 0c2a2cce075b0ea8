#if canImport(Runtime)
@_spi(Internal) @_spi(MemoryReaders) import Runtime
#endif
import Synchronization

/// Turns raw return addresses into functions, files and lines, each distinct address once per
/// process.
///
/// The only file that uses Swift's `Runtime` module (and its `Internal` and `MemoryReaders`
/// SPI, to symbolicate addresses captured by other means than `Backtrace.capture()`, which is
/// far too slow for a recording path). It reads the binaries' symbol tables and DWARF line
/// tables in process; nothing external is run. Called by a recording's symbolication thread
/// and when a recording stops, never on a recording path.
enum CallStackSymbolicator {
    /// What one return address resolves to: its frames, innermost first (more than one when
    /// the compiler inlined calls there).
    struct Frame: Hashable, Sendable {
        /// The symbol's mangled name, when the binary has a symbol for the address.
        let mangledName: String?
        /// The symbol demangled for people (`SearchViewModel.init(backend:queues:)`).
        let name: String?
        /// The source file, from debug information.
        let file: String?
        /// The source line, from debug information.
        let line: Int?
        /// The binary the address is in (`libswiftCore.so`, the program's own executable).
        let imageName: String?
        /// Whether the symbol is a compiler-made thunk.
        let isThunk: Bool
    }

    /// An address to symbolicate, and how: the call before a return address, or the function
    /// that starts at an entry address.
    private struct Address: Hashable, Comparable {
        let value: UInt
        let isEntry: Bool

        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.value, lhs.isEntry ? 1 : 0) < (rhs.value, rhs.isEntry ? 1 : 0) }
    }

    private static let cache = Mutex<[Address: [Frame]]>([:])

    /// The frames of each return address, in the order given.
    static func frames(returnAddresses addresses: [UInt]) -> [[Frame]] {
        frames(of: addresses.map { Address(value: $0, isEntry: false) })
    }

    /// The function that starts at each entry address (a closure's function pointer), in the
    /// order given: one frame each, or none.
    static func frames(entryAddresses addresses: [UInt]) -> [[Frame]] {
        frames(of: addresses.map { Address(value: $0, isEntry: true) })
    }

    /// The closure whose function pointer is each of `functions`: the closure itself, or, when
    /// the pointer is a compiler-made `partial apply` forwarder (which passes the closure its
    /// context), the closure the forwarder calls, found among the targets of the forwarder's
    /// first direct calls and jumps by the name the forwarder's own name gives it. `nil` for
    /// an address without a symbol. The functions, then every forwarder's targets, are each
    /// symbolicated in one pass: the binaries' images are mapped twice in all.
    static func closures(at functions: [UInt]) -> [Frame?] {
        let own = frames(entryAddresses: functions).map(\.first)
        let forwarded = own.map { frame in frame?.mangledName.flatMap(forwardedName) }
        let targets = zip(functions, forwarded).map { function, called in called == nil ? [] : directBranchTargets(from: function) }
        let targetFrames = frames(entryAddresses: targets.flatMap { $0 })
        var position = 0
        return zip(own, zip(forwarded, targets)).map { frame, forwarding in
            let (called, targets) = forwarding
            let candidates = targetFrames[position..<(position + targets.count)]
            position += targets.count
            guard let called else { return frame }
            return candidates.lazy.compactMap(\.first).first { $0.mangledName == called } ?? frame
        }
    }

    /// The mangled name of the function a `partial apply` forwarder named `mangled` forwards to:
    /// the name without its `TA` suffix (and the `.N` a clone adds).
    private static func forwardedName(_ mangled: String) -> String? {
        var name = Substring(mangled)
        if let dot = name.lastIndex(of: "."), name[name.index(after: dot)...].allSatisfy(\.isNumber) { name = name[..<dot] }
        guard name.hasSuffix("TA") else { return nil }
        return String(name.dropLast(2))
    }

    /// How many bytes of a forwarder are searched for its call to the closure.
    private static let forwarderSearchLength = 256

    /// The targets of the direct calls and jumps that may start in the first bytes of the code
    /// at `address`: every `call`/`jmp rel32` and short `jmp rel8` (a forwarder placed just
    /// after its closure jumps back to it) read at any offset on x86-64 (instructions have no
    /// fixed length, and a wrong reading gives a target whose name cannot match), every
    /// `bl`/`b` on arm64.
    private static func directBranchTargets(from address: UInt) -> [UInt] {
        #if canImport(Runtime)
        guard #available(macOS 26.0, iOS 26.0, *),
              let code = try? LocalMemoryReader().fetch(from: UInt64(address), count: forwarderSearchLength, as: UInt8.self)
        else { return [] }
        var targets: [UInt] = []
        #if arch(x86_64)
        let start = Int(bitPattern: address)
        for offset in 0..<(code.count - 4) {
            switch code[offset] {
            case 0xE8, 0xE9:
                let displacement = code[(offset + 1)...(offset + 4)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                targets.append(UInt(bitPattern: start + offset + 5 + Int(Int32(bitPattern: displacement))))
            case 0xEB:
                targets.append(UInt(bitPattern: start + offset + 2 + Int(Int8(bitPattern: code[offset + 1]))))
            default:
                continue
            }
        }
        #elseif arch(arm64)
        for offset in stride(from: 0, to: code.count - 3, by: 4) {
            let word = code[offset...(offset + 3)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard word & 0x7C00_0000 == 0x1400_0000 else { continue }
            let displacement = Int(Int32(bitPattern: word << 6) >> 6) * 4
            targets.append(UInt(bitPattern: Int(bitPattern: address) + offset + displacement))
        }
        #endif
        return targets
        #else
        return []
        #endif
    }

    private static func frames(of addresses: [Address]) -> [[Frame]] {
        let missing = cache.withLock { cache in Array(Set(addresses.filter { cache[$0] == nil })).sorted() }
        if !missing.isEmpty {
            let resolved = symbolicate(missing)
            cache.withLock { cache in
                for address in missing { cache[address] = resolved[address] ?? [] }
            }
        }
        return cache.withLock { cache in addresses.map { cache[$0] ?? [] } }
    }

    /// How far before a call the search for its statement's line goes, in bytes, in rounds:
    /// each round looks at every other byte of its range, for the calls still without a line.
    private static let statementSearchRounds: [StrideThrough<UInt>] = [stride(from: 2, through: 16, by: 2), stride(from: 18, through: 48, by: 2)]

    /// Gives a line to each call at `returnAddresses` (already symbolicated) whose innermost
    /// frame has a file and no line: code the compiler made for a statement, which DWARF gives
    /// line 0 (the `makeAsyncIterator()` and `next()` calls of a `for await` loop, a `for in`'s
    /// iterator). Its line is the statement's: the nearest line DWARF gives the same function's
    /// code before the call. Each round symbolicates its probes for all the calls still
    /// without a line at once.
    static func placeCompilerMadeCalls(at returnAddresses: [UInt]) {
        var unplaced: [Address: Frame] = cache.withLock { cache in
            var unplaced: [Address: Frame] = [:]
            for value in returnAddresses {
                let address = Address(value: value, isEntry: false)
                if let innermost = cache[address]?.first, innermost.file != nil, innermost.line == nil { unplaced[address] = innermost }
            }
            return unplaced
        }
        for distances in statementSearchRounds where !unplaced.isEmpty {
            let probes = unplaced.keys.sorted().flatMap { address in
                distances.compactMap { back in address.value > back ? Address(value: address.value - back, isEntry: true) : nil }
            }
            let found = symbolicate(probes)
            for (address, innermost) in unplaced {
                let line = distances.lazy.compactMap { back -> Int? in
                    guard address.value > back, let frame = found[Address(value: address.value - back, isEntry: true)]?.first,
                          frame.mangledName == innermost.mangledName, frame.file == innermost.file
                    else { return nil }
                    return frame.line
                }.first
                guard let line else { continue }
                unplaced[address] = nil
                let placed = Frame(
                    mangledName: innermost.mangledName, name: innermost.name, file: innermost.file, line: line,
                    imageName: innermost.imageName, isThunk: innermost.isThunk
                )
                cache.withLock { $0[address]?[0] = placed }
            }
        }
    }

    private static func symbolicate(_ addresses: [Address]) -> [Address: [Frame]] {
        #if canImport(Runtime)
        if #available(macOS 26.0, iOS 26.0, *) {
            return symbolicateWithRuntime(addresses)
        }
        #endif
        return [:]
    }

    #if canImport(Runtime)
    @available(macOS 26.0, iOS 26.0, *)
    private static func symbolicateWithRuntime(_ addresses: [Address]) -> [Address: [Frame]] {
        #if arch(x86_64)
        let architecture = "x86_64"
        #elseif arch(arm64)
        let architecture = "arm64"
        #else
        return [:]
        #endif
        let backtrace = Backtrace(
            architecture: architecture,
            frames: addresses.map { $0.isEntry ? RichFrame<UInt>.programCounter($0.value) : .returnAddress($0.value) }, images: nil
        )
        let options: Backtrace.SymbolicationOptions = [.showInlineFrames, .showSourceLocations, .useSymbolCache]
        // The image map checks every mapped file for an ELF header. `ImageMap.capture()` reads
        // them in place and crashes on a mapping without read access (a binary mapped
        // `PROT_NONE`, or valgrind's own images); a `LocalMemoryReader` copies them with
        // `process_vm_readv`, which fails in words instead.
        let images = ImageMap.capture(using: LocalMemoryReader())
        guard let symbolicated = backtrace.symbolicated(with: images, options: options) else { return [:] }
        var frames: [Address: [Frame]] = [:]
        for frame in symbolicated.frames {
            let key: Address
            switch frame.captured {
            case .returnAddress(let address):
                guard let value = UInt(address) else { continue }
                key = Address(value: value, isEntry: false)
            case .programCounter(let address):
                guard let value = UInt(address) else { continue }
                key = Address(value: value, isEntry: true)
            default: continue
            }
            let symbol = frame.symbol
            // Compiler-made code (a scope's cleanup, a deinit's epilogue) has no place of its
            // own: DWARF gives it the file `//<compiler-generated>` and line 0.
            let source = symbol?.sourceLocation.flatMap { $0.path.hasSuffix("<compiler-generated>") ? nil : $0 }
            frames[key, default: []].append(Frame(
                mangledName: symbol?.rawName, name: symbol?.name,
                file: source?.path, line: source.flatMap { $0.line > 0 ? $0.line : nil },
                imageName: symbol?.imageName, isThunk: frame.isSwiftThunk
            ))
        }
        return frames
    }
    #endif
}
