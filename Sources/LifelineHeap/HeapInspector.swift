import CLifelineHeap
import Synchronization

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
///
/// What an inspection validated about metadata (class layouts, closure capture lists, field
/// types) holds for the rest of the process, since metadata is never freed: an inspector keeps
/// it for its later inspections, which then read only the objects themselves. Inspections by
/// one inspector run one at a time.
///
/// ```swift
/// let graph = HeapInspector().inspect(roots: [HeapInspector.address(of: viewModel)])
/// ```
package struct HeapInspector: Sendable {
    /// The metadata an inspector's inspections validated, behind the lock that runs them one
    /// at a time.
    final class SharedCatalog: @unchecked Sendable {
        /// Held for a whole inspection: the catalog is only used under it.
        let lock = Mutex(())
        let catalog = MetadataCatalog(memory: ProcessMemory.empty)
        /// The mappings the last inspection used.
        var mappings: ProcessMemory.MappingTable?
        /// How many objects and references the last inspection found: the next one reserves
        /// room for as many, rather than growing its tables step by step.
        var lastSize = (objects: 0, references: 0)
        /// The pages the last inspection that read everything copied: the next one copies them
        /// again in a few system calls before it starts, rather than one at a time as it meets
        /// them (after a long run the heap is fragmented, and a view model's objects lie on as
        /// many pages as there are objects).
        var lastPages: [UInt] = []

        /// Memory for the next inspection, with the mappings the last one used.
        func memory() -> ProcessMemory {
            let memory = mappings.map(ProcessMemory.init(reusing:)) ?? ProcessMemory()
            mappings = memory.table
            return memory
        }
    }

    /// The most objects one inspection records; the walk stops growing there.
    package var objectLimit: Int
    let shared = SharedCatalog()

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

    /// What an object an earlier inspection read looks like now: the fingerprint of the memory
    /// its references were read from, and its reference counts.
    package struct Recheck: Sendable {
        /// The hash of its ``HeapGraph/regions(of:)`` now, `nil` when they cannot be read: when it
        /// equals the ``HeapGraph/fingerprint(of:)`` it had, the object holds the references it held.
        package let fingerprint: UInt64?
        /// Its counts now, `nil` when they cannot be read.
        package let counts: HeapGraph.Counts?
        /// Whether it is being deinitialized: no longer an object an inspection reads.
        package let isDeiniting: Bool
    }

    /// Reads again, for each object of `regions` (an earlier graph's ``HeapGraph/regions(of:)`` by object),
    /// the memory its references came from and its reference counts, without following
    /// anything: a fraction of what reading its fields costs. What a snapshot that reads only
    /// what changed asks first.
    package func recheck(_ regions: [UInt: [Range<UInt>]]) -> [UInt: Recheck] {
        shared.lock.withLock { _ in
            let walk = HeapWalk(catalog: shared.catalog, objectLimit: 0, memory: .empty, excluding: { _, _ in true })
            var rechecks: [UInt: Recheck] = [:]
            for (address, regions) in regions where RuntimeLayout.isPlausibleAddress(address) {
                let bits = walk.countWords(of: address)?.bits ?? 0
                rechecks[address] = Recheck(
                    fingerprint: walk.memory.fingerprint(of: regions), counts: walk.counts(of: address),
                    isDeiniting: bits & RuntimeLayout.deinitingBit != 0
                )
            }
            return rechecks
        }
    }

    /// The graph reachable from `roots` (object addresses) through strong, weak and unowned
    /// references, closures, boxes and collections. A root that is not a valid object is left
    /// out.
    ///
    /// - Parameters:
    ///   - roots: The addresses of the objects to start from.
    ///   - excluding: Objects to leave out of the graph, and not to walk through, by address
    ///     and fully qualified type name: the tracer's own objects, for example.
    ///   - known: The fully qualified type name of each object an earlier inspection read, by
    ///     address (`nil` for any other address); `nil` when the inspection reads everything. One reached again with the same type is added with fresh counts, but its
    ///     fields are not read (``HeapGraph/wasRead(_:)`` is false), nor what only it
    ///     leads to: the caller keeps its references from before.
    package func inspect(
        roots: [UInt], known: ((UInt) -> String?)? = nil,
        excluding: (UInt, String) -> Bool = { _, _ in false }
    ) -> HeapGraph {
        shared.lock.withLock { _ in
            withoutActuallyEscaping(excluding) { excluding in
                withoutActuallyEscaping(known ?? { _ in nil }) { knownType in
                    var walk = HeapWalk(
                        catalog: shared.catalog, objectLimit: objectLimit, known: knownType, memory: shared.memory(), excluding: excluding
                    )
                    // A walk that reads everything finds about what the last one did; one that
                    // reads what changed finds a few objects, and reserves nothing.
                    if known == nil {
                        walk.reserve(objects: shared.lastSize.objects, references: shared.lastSize.references)
                        walk.memory.prefetch(pages: shared.lastPages)
                    }
                    walk.run(roots: roots)
                    if known == nil {
                        shared.lastSize = (walk.graph.nodes.count, walk.graph.references.count)
                        shared.lastPages = walk.memory.copiedPages
                    }
                    return walk.graph
                }
            }
        }
    }
}
