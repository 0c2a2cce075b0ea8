import CLifelineHeap
import Synchronization

/// The global and static variables of the program's own images: the executable and the
/// libraries it loaded that are neither the system's nor the Swift toolchain's.
///
/// They are read from each image's symbol table (`.symtab`, on disk), once per image per
/// process: a stripped image has none, and its variables are not found. Only the storage the
/// compiler names as a variable's is taken (``GlobalVariable``), never another data symbol.
package enum ProgramGlobals {
    private struct ImageKey: Hashable {
        let path: String
        let base: UInt
    }

    /// One image as the loader reports it.
    private struct LoadedImage {
        let key: ImageKey
        let writable: [Range<UInt>]
    }

    private static let variablesByImage = Mutex<[ImageKey: [GlobalVariable]]>([:])

    /// The variables of the program's images loaded now, in image then address order, except
    /// those of modules `excluding` names.
    package static func variables(excluding: (String) -> Bool) -> [GlobalVariable] {
        let images = loadedImages()
        let toolchain = images.first { fileName($0.key.path).hasPrefix("libswiftCore.") }.map { directory($0.key.path) }
        var variables: [GlobalVariable] = []
        for image in images where isProgramImage(image.key.path, toolchain: toolchain) {
            let known = variablesByImage.withLock { $0[image.key] }
            let found = known ?? read(image)
            if known == nil { variablesByImage.withLock { $0[image.key] = found } }
            variables += found.filter { !excluding($0.module) }
        }
        return variables
    }

    /// Whether the image at `path` is the program's: its executable (an empty path), or a
    /// library outside the system's directories and the Swift toolchain's runtime directory.
    private static func isProgramImage(_ path: String, toolchain: Substring?) -> Bool {
        if path.isEmpty { return true }
        guard path.hasPrefix("/") else { return false }
        if ["/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/"].contains(where: path.hasPrefix) { return false }
        return toolchain.map { directory(path) != $0 } ?? true
    }

    private static func fileName(_ path: String) -> Substring {
        path.split(separator: "/").last ?? Substring(path)
    }

    private static func directory(_ path: String) -> Substring {
        path.lastIndex(of: "/").map { path[..<$0] } ?? ""
    }

    private static func loadedImages() -> [LoadedImage] {
        var images: [LoadedImage] = []
        withUnsafeMutablePointer(to: &images) { pointer in
            lifeline_heap_enumerate_loaded_images({ image, context in
                guard let image, let context else { return }
                let images = context.assumingMemoryBound(to: [LoadedImage].self)
                let info = image.pointee
                let starts = withUnsafeBytes(of: info.writable_start) { Array($0.bindMemory(to: UInt.self)) }
                let ends = withUnsafeBytes(of: info.writable_end) { Array($0.bindMemory(to: UInt.self)) }
                let writable = (0..<Int(info.writable_count)).compactMap { index in
                    starts[index] < ends[index] ? starts[index]..<ends[index] : nil
                }
                images.pointee.append(LoadedImage(key: ImageKey(path: String(cString: info.path), base: info.base), writable: writable))
            }, pointer)
        }
        return images
    }

    /// The variables whose storage lies in `image`'s writable segments, from its symbol table.
    private static func read(_ image: LoadedImage) -> [GlobalVariable] {
        var symbols: [(name: String, value: UInt64, size: UInt64)] = []
        let path = image.key.path.isEmpty ? "/proc/self/exe" : image.key.path
        withUnsafeMutablePointer(to: &symbols) { pointer in
            _ = lifeline_heap_enumerate_variable_symbols(path, { name, value, size, context in
                guard let name, let context else { return }
                context.assumingMemoryBound(to: [(name: String, value: UInt64, size: UInt64)].self).pointee
                    .append((String(cString: name), value, size))
            }, pointer)
        }
        return symbols.compactMap { symbol -> GlobalVariable? in
            let (address, overflow) = image.key.base.addingReportingOverflow(UInt(symbol.value))
            guard !overflow, symbol.size > 0, symbol.size <= UInt64(Int.max),
                  image.writable.contains(where: { $0.contains(address) })
            else { return nil }
            return GlobalVariable(symbol: symbol.name, address: address, size: Int(symbol.size))
        }
        .sorted { $0.address < $1.address }
    }
}
