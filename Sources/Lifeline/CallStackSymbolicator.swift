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
/// tables in process; nothing external is run. Called when a recording stops, never while
/// recording.
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

    private static let cache = Mutex<[UInt: [Frame]]>([:])

    /// The frames of each return address, in the order given.
    static func frames(returnAddresses addresses: [UInt]) -> [[Frame]] {
        let missing = cache.withLock { cache in Array(Set(addresses.filter { cache[$0] == nil })).sorted() }
        if !missing.isEmpty {
            let resolved = symbolicate(missing)
            cache.withLock { cache in
                for (address, frames) in resolved { cache[address] = frames }
            }
        }
        return cache.withLock { cache in addresses.map { cache[$0] ?? [] } }
    }

    private static func symbolicate(_ addresses: [UInt]) -> [UInt: [Frame]] {
        #if canImport(Runtime)
        if #available(macOS 26.0, iOS 26.0, *) {
            return symbolicateWithRuntime(addresses)
        }
        #endif
        return [:]
    }

    #if canImport(Runtime)
    @available(macOS 26.0, iOS 26.0, *)
    private static func symbolicateWithRuntime(_ addresses: [UInt]) -> [UInt: [Frame]] {
        #if arch(x86_64)
        let architecture = "x86_64"
        #elseif arch(arm64)
        let architecture = "arm64"
        #else
        return [:]
        #endif
        let backtrace = Backtrace(
            architecture: architecture, frames: addresses.map { RichFrame<UInt>.returnAddress($0) }, images: nil
        )
        let options: Backtrace.SymbolicationOptions = [.showInlineFrames, .showSourceLocations, .useSymbolCache]
        // The image map checks every mapped file for an ELF header. `ImageMap.capture()` reads
        // them in place and crashes on a mapping without read access (a binary mapped
        // `PROT_NONE`, or valgrind's own images); a `LocalMemoryReader` copies them with
        // `process_vm_readv`, which fails in words instead.
        let images = ImageMap.capture(using: LocalMemoryReader())
        guard let symbolicated = backtrace.symbolicated(with: images, options: options) else { return [:] }
        var frames: [UInt: [Frame]] = [:]
        for frame in symbolicated.frames {
            guard case .returnAddress(let address) = frame.captured, let key = UInt(address) else { continue }
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
