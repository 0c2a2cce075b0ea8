import CLifelineHeap

/// Finds the references live objects store, from a set of roots, without ever touching an
/// object it has not proven alive and well-formed.
///
/// The inspector reads memory only through ``ProcessMemory`` (reads that cannot fault), turns
/// a word into an object only after its metadata checks out (``MetadataCatalog``), and calls
/// the runtime's reflection only on validated metadata, never on an object. Each stored value
/// is read by its type: an enum by its active case (read by the enum's own witnesses from a
/// copy of its bytes, ``EnumWitnesses``), an existential by its dynamic type, a tuple by its
/// elements; so an integer that equals an object's address is never taken for a reference.
/// It never retains an object, so it cannot extend or end a lifetime. A reference that changes
/// while it is read is missed or read as garbage that fails validation: a missing edge, never
/// a fault.
///
/// ```swift
/// let graph = HeapInspector().inspect(roots: [HeapInspector.address(of: viewModel)])
/// ```
package struct HeapInspector: Sendable {
    /// The most objects one inspection records; the walk stops growing there.
    package var objectLimit: Int

    /// Creates an inspector that stops at `objectLimit` objects.
    package init(objectLimit: Int = 10_000) {
        self.objectLimit = objectLimit
    }

    /// The address of `object`, for ``inspect(roots:)``. The object is not retained.
    package static func address(of object: AnyObject) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    }

    /// How many memory reads (one system call each) inspections in this process have made so
    /// far, for benchmarks.
    package static var memoryReadCount: UInt64 { lifeline_heap_read_count() }

    /// The graph reachable from `roots` (object addresses) through strong, weak and unowned
    /// references, closures, boxes and collections. A root that is not a valid object is left
    /// out.
    ///
    /// - Parameters:
    ///   - roots: The addresses of the objects to start from.
    ///   - excluding: Objects to leave out of the graph, and not to walk through, by address
    ///     and fully qualified type name: the tracer's own objects, for example.
    package func inspect(roots: [UInt], excluding: (UInt, String) -> Bool = { _, _ in false }) -> HeapGraph {
        withoutActuallyEscaping(excluding) { excluding in
            var walk = HeapWalk(objectLimit: objectLimit, excluding: excluding)
            walk.run(roots: roots)
            return walk.graph
        }
    }
}
