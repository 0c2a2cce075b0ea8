#if canImport(Glibc)
import Glibc
#endif

/// A global or static variable of the program: where its storage is, and its name, from the
/// symbol the compiler gave that storage in the program's symbol table.
///
/// The storage of `static let shared = Service()` in module `Gallery` is the data symbol
/// `$s7Gallery7ServiceC6sharedACvpZ`; that of a top-level `let cache = Cache()` ends in `vp`.
package struct GlobalVariable: Hashable, Sendable {
    /// Where its storage starts in this process.
    package let address: UInt
    /// The storage's size in bytes.
    package let size: Int
    /// The module that declares it: `Gallery`.
    package let module: String
    /// The variable, qualified by its module and type: `Gallery.Service.shared`.
    package let qualifiedName: String
    /// Whether it is a type's static variable rather than a top-level one.
    package let isStatic: Bool

    /// How the program writes it: `static Service.shared`, `global cache`.
    package var declaration: String {
        let unqualified = qualifiedName.hasPrefix(module + ".") ? String(qualifiedName.dropFirst(module.count + 1)) : qualifiedName
        return (isStatic ? "static " : "global ") + unqualified
    }

    /// The variable whose storage is the data symbol `symbol`, at `address` in this process,
    /// or `nil` when the symbol does not demangle as a variable's storage.
    init?(symbol: String, address: UInt, size: Int) {
        guard let demangled = Self.demangle(symbol) else { return nil }
        // `static Gallery.Service.shared : Gallery.Service`, `Gallery.cache : Gallery.Cache`.
        var name = Substring(demangled)
        isStatic = name.hasPrefix("static ")
        if isStatic { name = name.dropFirst("static ".count) }
        if let typeStart = name.firstRange(of: " : ") { name = name[..<typeStart.lowerBound] }
        guard let dot = name.firstIndex(of: "."), !name.contains(" ") else { return nil }
        module = String(name[..<dot])
        qualifiedName = String(name)
        self.address = address
        self.size = size
    }

    /// `symbol` demangled by the Swift runtime, or `nil` when it cannot demangle it.
    private static func demangle(_ symbol: String) -> String? {
        symbol.withCString { mangled in
            guard let demangled = swiftDemangle(mangled, strlen(mangled), nil, nil, 0) else { return nil }
            defer { free(demangled) }
            return String(cString: demangled)
        }
    }
}

/// The Swift runtime's demangler: a new C string the caller frees, or `nil`.
@_silgen_name("swift_demangle")
private func swiftDemangle(
    _ mangledName: UnsafePointer<CChar>, _ mangledNameLength: Int, _ outputBuffer: UnsafeMutablePointer<CChar>?,
    _ outputBufferSize: UnsafeMutablePointer<Int>?, _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?
