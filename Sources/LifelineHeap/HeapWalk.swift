/// One inspection's state: the walk from the roots, the graph so far, and what was validated.
struct HeapWalk {
    let memory: ProcessMemory
    let catalog: MetadataCatalog
    let objectLimit: Int
    let excluding: (UInt, String) -> Bool
    /// Objects an earlier inspection read, by address, with their type names: reaching one of
    /// the same type again adds it to the graph with fresh counts, without reading its fields.
    let known: (UInt) -> String?
    var graph = HeapGraph()
    var pending: [(address: UInt, layout: ClassLayout)] = []
    /// The objects put in `pending` so far.
    var queued = AddressTable<Void>()
    /// The addresses of the graph's nodes: asked for every reference followed, and cheaper
    /// to ask here than the graph's dictionary.
    var nodeAddresses = AddressTable<Void>()
    /// Where the references of the object being read start in the graph's list: each object's
    /// references are found while it is read, so only those can repeat one another.
    var segmentStart = 0
    /// The targets of the references of the object being read, once they are too many to
    /// compare one by one: a new reference is compared with the others only when its target
    /// is among them.
    var seenTargets = AddressTable<Void>()
    /// Closure contexts and boxes being walked, so a box that reaches itself ends.
    var openContainers = AddressTable<Void>()
    /// Instances validated during this walk, so an object many others refer to is checked
    /// once. Their layouts are the catalog's, which keeps every layout it made for as long as
    /// it lives, and the walk holds the catalog: unretained here, so that the table is neither
    /// retained into nor released element by element when the walk ends.
    var validated = AddressTable<Unmanaged<ClassLayout>>()
    /// The system-library object whose internals are being walked, if any.
    var interior: LibraryInterior?
    /// The holder whose regions were noted last, with its position among the objects read:
    /// most regions are noted for the object being read.
    var lastRegionHolder: (address: UInt, position: Int) = (.max, 0)
    /// The function of the innermost closure whose context is being walked, or 0 outside
    /// closures (and inside the elements of a collection drawn apart): the code that captured
    /// what the references found in it reach.
    var closureFunction: UInt = 0

    /// A walk that reads memory afresh and keeps what `catalog` validated before.
    init(
        catalog: MetadataCatalog, objectLimit: Int, known: @escaping (UInt) -> String? = { _ in nil },
        memory: ProcessMemory = ProcessMemory(),
        excluding: @escaping (UInt, String) -> Bool
    ) {
        self.memory = memory
        self.objectLimit = objectLimit
        self.excluding = excluding
        self.known = known
        self.catalog = catalog
        catalog.begin(with: memory)
    }

    /// Makes room for `objects` objects and `references` references.
    mutating func reserve(objects: Int, references: Int) {
        guard objects > 0 else { return }
        graph.nodes.reserveCapacity(objects)
        graph.reserveReadObjects(objects)
        graph.references.reserveCapacity(references)
        validated.reserveCapacity(objects)
        queued.reserveCapacity(objects)
        nodeAddresses.reserveCapacity(objects)
    }

    mutating func run(roots: [UInt]) {
        for root in roots {
            guard let layout = instanceLayout(at: root) else { continue }
            addInstance(root, layout)
        }
        while let (address, layout) = pending.popLast() {
            segmentStart = graph.references.count
            if !seenTargets.isEmpty { seenTargets.removeAll() }
            _ = graph.markRead(address)
            noteRegion(of: address, start: address, size: layout.instanceSize)
            // Only `addInstance` queues, with the node it makes: opaque when its layout is.
            if layout.isSystemLibrary {
                walkInterior(of: address, layout)
                continue
            }
            for field in layout.referenceFields {
                scanValue(at: address + UInt(field.offset), type: field.type, path: field.name,
                          ownership: field.ownership, holder: address, depth: .field)
            }
        }
        for position in graph.readObjects.indices {
            var hash = ProcessMemory.emptyFingerprint, readable = true
            graph.forEachRegion(ofReadObjectAt: position) { region in
                readable = memory.addToFingerprint(region, &hash)
                return readable
            }
            graph.setFingerprint(readable ? hash : nil, ofReadObjectAt: position)
        }
    }

    /// Notes that `holder`'s references were read from the heap object of `size` bytes at
    /// `start` (the holder itself, its collection's storage, a closure context or box it holds).
    mutating func noteRegion(of holder: UInt, start: UInt, size: Int) {
        let (end, overflow) = start.addingReportingOverflow(UInt(max(size, 0)))
        guard !overflow else { return }
        // The holder is the object being read, or a collection it holds: read before its
        // regions are noted.
        if holder != lastRegionHolder.address {
            guard let position = graph.readPosition(of: holder) else { return }
            lastRegionHolder = (holder, position)
        }
        graph.addRegion(start..<end, toReadObjectAt: lastRegionHolder.position)
    }

    // MARK: Objects

    /// The layout of the class instance at `address`, if it is one: aligned, with validated
    /// class metadata, not being deinitialized, and, on the heap, inside a malloc allocation
    /// at least as large as its instance size.
    mutating func instanceLayout(at address: UInt) -> ClassLayout? {
        if let layout = validated[address] { return layout.takeUnretainedValue() }
        guard let layout = validateInstance(at: address) else { return nil }
        validated[address] = Unmanaged.passUnretained(layout)
        return layout
    }

    func validateInstance(at address: UInt) -> ClassLayout? {
        guard RuntimeLayout.isPlausibleAddress(address),
              let metadata = memory.word(at: address + UInt(RuntimeLayout.objectMetadataOffset)),
              case .instance(let layout)? = catalog.heapKind(metadata: metadata),
              let bits = countWords(of: address)?.bits, bits & RuntimeLayout.deinitingBit == 0
        else { return nil }
        if let mapping = memory.mapping(containing: address), mapping.isHeap {
            guard let size = memory.allocationSize(at: address), size >= layout.instanceSize else { return nil }
        }
        return layout
    }

    /// The object whose side table entry is at `address`: the entry names an object whose
    /// reference count word points back to the entry.
    mutating func objectOwningSideTable(_ address: UInt) -> UInt? {
        guard RuntimeLayout.isPlausibleAddress(address),
              let object = memory.word(at: address + UInt(RuntimeLayout.sideTableObjectOffset)),
              instanceLayout(at: object) != nil,
              let refCount = memory.word(at: object + UInt(RuntimeLayout.objectRefCountOffset)),
              RuntimeLayout.sideTable(inRefCount: UInt64(refCount)) == address
        else { return nil }
        return object
    }

    /// The inline count bits of the object at `address` and its weak count: from its
    /// reference count word (weak count 1), or from its side table when it has one.
    func countWords(of address: UInt) -> (bits: UInt64, weak: UInt32)? {
        guard let refCount = memory.word(at: address + UInt(RuntimeLayout.objectRefCountOffset)) else { return nil }
        guard let sideTable = RuntimeLayout.sideTable(inRefCount: UInt64(refCount)) else { return (UInt64(refCount), 1) }
        // An object dying on another thread can leave any word here: a side table address past
        // the end of the address space must not be added to (it trapped a test run).
        guard RuntimeLayout.isPlausibleAddress(sideTable),
              let bits = memory.word(at: sideTable + UInt(RuntimeLayout.sideTableRefCountOffset)),
              let weak = memory.uint32(at: sideTable + UInt(RuntimeLayout.sideTableWeakCountOffset))
        else { return nil }
        return (UInt64(bits), weak)
    }

    func counts(of address: UInt) -> HeapGraph.Counts? {
        guard let words = countWords(of: address) else { return nil }
        let counts = RuntimeLayout.counts(inline: words.bits, weak: words.weak)
        return HeapGraph.Counts(strong: counts.strong, weak: counts.weak, unowned: counts.unowned)
    }

    /// Records the instance and queues its fields. `false` when the object limit is reached.
    @discardableResult
    mutating func addInstance(_ address: UInt, _ layout: ClassLayout) -> Bool {
        if nodeAddresses.contains(address) { return true }
        guard graph.nodes.count < objectLimit, !excluding(address, layout.typeName) else { return false }
        nodeAddresses.insert(address)
        graph.nodes[address] = HeapGraph.Node(
            address: address, typeName: layout.typeName, isCollection: false,
            isOpaque: layout.isSystemLibrary, counts: counts(of: address)?.leavingOut(strong: layout.selfReferences)
        )
        if known(address) != layout.typeName { queue(address, layout) }
        return true
    }

    /// Puts the object in `pending`, for its fields to be read, unless it was already.
    mutating func queue(_ address: UInt, _ layout: ClassLayout) {
        if queued.insert(address) { pending.append((address, layout)) }
    }

    /// Scans a system-library object's internals (``SystemLibrary``) as if they were its own
    /// fields: the program's objects found in them become its references.
    mutating func walkInterior(of owner: UInt, _ layout: ClassLayout) {
        interior = LibraryInterior(owner: owner, layout: layout)
        defer { interior = nil }
        while let item = interior?.dequeue() {
            if item.address != owner { noteRegion(of: owner, start: item.address, size: item.layout.instanceSize) }
            for field in item.layout.referenceFields {
                scanValue(at: item.address + UInt(field.offset), type: field.type,
                          path: LibraryInterior.path(item.path, field.name), ownership: item.ownership.through(field.ownership),
                          holder: owner, depth: .field)
            }
        }
    }

    /// Records that `holder` references the object at `object`, adding the object to the
    /// graph; inside a system-library object's internals, another object of the library is
    /// walked through instead.
    mutating func reach(_ object: UInt, _ layout: ClassLayout, path: String, ownership: ReferenceOwnership, holder: UInt) {
        if interior != nil, layout.isSystemLibrary {
            interior?.enqueue(LibraryInterior.Item(address: object, layout: layout, path: path, ownership: ownership))
        } else if addInstance(object, layout) {
            addReference(from: holder, to: object, path: path, ownership: ownership)
            // A system library's object (an array's storage held as an `Any`) is part of the
            // value of the object that holds it, read again with it.
            if layout.isSystemLibrary { queue(object, layout) }
        }
    }

    /// Records a reference to `target`, which must be in the graph already, unless the object
    /// being read has recorded it before.
    mutating func addReference(from holder: UInt, to target: UInt, path: String, ownership: ReferenceOwnership) {
        let reference = HeapGraph.Reference(
            from: holder, to: target, path: path, ownership: ownership, closureFunction: closureFunction
        )
        let found = graph.references.count - segmentStart
        if found < Self.referencesComparedOneByOne {
            for index in segmentStart..<graph.references.count where graph.references[index] == reference { return }
        } else {
            if found == Self.referencesComparedOneByOne {
                for index in segmentStart..<graph.references.count { seenTargets.insert(graph.references[index].to) }
            }
            if !seenTargets.insert(target) {
                for index in segmentStart..<graph.references.count where graph.references[index] == reference { return }
            }
        }
        graph.references.append(reference)
    }

    /// Up to how many references of one object a new one is compared with one by one.
    static let referencesComparedOneByOne = 16

    // MARK: Values

    /// How deep in the object being read a value lies: through how many boxes, closure
    /// contexts and collections, and through how many values in all (a struct's fields, an
    /// enum's payload, a tuple's elements, an existential's value). Both counts in one word,
    /// as every scanning function passes it on.
    ///
    /// A chain of containers that reach one another, which memory that changed while it was
    /// read can make, ends at ``maximumContainers``, and so does a tree of closures that share
    /// captures. A value's own nesting is finite as its type is, and is bounded apart, by
    /// ``maximumValues``, only to keep a pathological type from exhausting a small thread
    /// stack: under recording, the subscription autoconnect()'s struct subscription wraps lies
    /// three boxes and eight values deep in its subscriber's optional field, each handed over
    /// in an existential in an OpenCombine `SubscriptionTap`.
    struct Depth {
        private var bits: Int

        /// An object's own field.
        static let field = Depth(bits: 0)
        static let maximumContainers = 8
        static let maximumValues = 64
        private static let containerShift = 8

        private init(bits: Int) { self.bits = bits }

        /// The depth of a value inside the value at this depth.
        var intoValue: Depth { Depth(bits: bits + 1) }
        /// The depth of the value a container holds, reached from a value at this depth.
        var intoContainer: Depth { Depth(bits: bits + (1 << Self.containerShift) + 1) }
        /// Whether a value this deep is read.
        var isReadable: Bool {
            bits >> Self.containerShift < Self.maximumContainers && bits & ((1 << Self.containerShift) - 1) < Self.maximumValues
        }
    }

    /// Finds the references in a value of `type` stored at `address`.
    mutating func scanValue(
        at address: UInt, type: Any.Type, path: String, ownership: ReferenceOwnership, holder: UInt, depth: Depth
    ) {
        guard depth.isReadable else { return }
        let metadata = unsafeBitCast(type, to: UInt.self)
        guard let kind = catalog.kind(of: type) else { return }
        switch kind {
        case RuntimeLayout.classMetadataKind:
            if let word = memory.word(at: address) {
                followWord(word, path: path, ownership: ownership, holder: holder, depth: depth)
            }
        case RuntimeLayout.functionMetadataKind:
            guard let flags = memory.word(at: metadata + UInt(RuntimeLayout.functionFlagsOffset)),
                  (flags >> RuntimeLayout.functionConventionShift) & RuntimeLayout.functionConventionMask
                    == RuntimeLayout.swiftFunctionConvention,
                  size(of: type) == 2 * MemoryLayout<UInt>.size,
                  let context = memory.word(at: address + UInt(RuntimeLayout.closureContextWordOffset)), context != 0
            else { return }
            followClosure(function: memory.word(at: address) ?? 0, context: context, path: path, ownership: ownership,
                          holder: holder, depth: depth)
        case RuntimeLayout.structMetadataKind:
            if let shape = catalog.collectionShape(of: type) {
                if let storage = memory.word(at: address + UInt(RuntimeLayout.collectionStorageWordOffset)) {
                    scanCollection(storage, type: type, shape: shape, path: path, ownership: ownership, holder: holder, depth: depth)
                }
                return
            }
            for field in catalog.referenceFields(ofStruct: type) {
                scanValue(at: address + UInt(field.offset), type: field.type, path: field.paths.joined(to: path),
                          ownership: ownership.through(field.ownership), holder: holder, depth: depth.intoValue)
            }
        case RuntimeLayout.optionalMetadataKind where catalog.isOptionalClassReference(type):
            // The reference itself, or null for `nil` (the reference's extra inhabitant, which
            // followWord rejects): no copy and no witness call needed.
            if let word = memory.word(at: address) {
                followWord(word, path: path, ownership: ownership, holder: holder, depth: depth)
            }
        case RuntimeLayout.enumMetadataKind, RuntimeLayout.optionalMetadataKind:
            // An optional's one payload case adds nothing to the path.
            scanEnum(at: address, type: type, path: path, namesCase: kind == RuntimeLayout.enumMetadataKind,
                     ownership: ownership, holder: holder, depth: depth)
        case RuntimeLayout.existentialMetadataKind, RuntimeLayout.extendedExistentialMetadataKind:
            scanExistential(at: address, type: type, path: path, ownership: ownership, holder: holder, depth: depth)
        case RuntimeLayout.tupleMetadataKind:
            for (index, element) in (catalog.elements(ofTuple: type) ?? []).enumerated() {
                scanValue(at: address + UInt(element.offset), type: element.type, path: "\(path).\(element.label ?? String(index))",
                          ownership: ownership, holder: holder, depth: depth.intoValue)
            }
        case RuntimeLayout.opaqueMetadataKind:
            guard let word = memory.word(at: address) else { return }
            if catalog.isReference(builtin: type) {
                followWord(word, path: path, ownership: ownership, holder: holder, depth: depth)
            } else if catalog.isContinuation(builtin: type) {
                // The task a continuation resumes waits on its holder; the continuation does not
                // retain it.
                followWord(word, path: path, ownership: .unownedUnsafe, holder: holder, depth: depth)
            }
        default:
            // Metatypes and the other kinds hold no references.
            return
        }
    }

    /// Finds the references in the enum (or optional) value at `address`: its bytes are copied,
    /// the active case is read from the copy, and the copy's payload is scanned as that case's
    /// payload type. A value whose case or payload type cannot be told gives no references.
    mutating func scanEnum(
        at address: UInt, type: Any.Type, path: String, namesCase: Bool, ownership: ReferenceOwnership, holder: UInt,
        depth: Depth
    ) {
        guard let cases = catalog.cases(ofEnum: type), cases.contains(where: { $0.payload != nil }),
              let witnesses = catalog.witnesses(ofEnum: type)
        else { return }
        let size = self.size(of: type)
        withUnsafeTemporaryAllocation(byteCount: max(size, 1), alignment: 16) { buffer in
            guard let copy = buffer.baseAddress, memory.copy(size, from: address, into: copy) else { return }
            defer { memory.release(copy) }
            scanCopiedEnum(copy, cases: cases, witnesses: witnesses, path: path, namesCase: namesCase, ownership: ownership,
                           holder: holder, depth: depth)
        }
    }

    /// ``scanEnum``'s part once the value is copied to `copy`.
    private mutating func scanCopiedEnum(
        _ copy: UnsafeMutableRawPointer, cases: [MetadataCatalog.EnumCase], witnesses: EnumWitnesses, path: String,
        namesCase: Bool, ownership: ReferenceOwnership, holder: UInt, depth: Depth
    ) {
        let tag = witnesses.takeTag(ofCopy: copy)
        guard cases.indices.contains(tag), let payload = cases[tag].payload else { return }
        let casePath = namesCase ? cases[tag].paths.joined(to: path) : path
        let payloadAddress = UInt(bitPattern: copy)
        if cases[tag].isIndirect {
            guard let box = memory.word(at: payloadAddress) else { return }
            scanBox(box, holding: payload, path: casePath, ownership: ownership, holder: holder, depth: depth)
        } else {
            scanValue(at: payloadAddress, type: payload, path: casePath, ownership: ownership, holder: holder, depth: depth.intoValue)
        }
    }

    /// Finds the references in the existential value at `address`, as its own flags and the
    /// value's type say it is stored.
    mutating func scanExistential(
        at address: UInt, type: Any.Type, path: String, ownership: ReferenceOwnership, holder: UInt, depth: Depth
    ) {
        guard let representation = catalog.representation(ofExistential: type) else { return }
        switch representation {
        case .classReference, .errorBox:
            if let word = memory.word(at: address) {
                followWord(word, path: path, ownership: ownership, holder: holder, depth: depth)
            }
        case .opaque:
            // The buffer and the type are copied together, so the type read is the one the
            // buffer's value was stored with (unless the value changed while it was copied).
            let size = RuntimeLayout.existentialTypeOffset + MemoryLayout<UInt>.size
            withUnsafeTemporaryAllocation(byteCount: size, alignment: 16) { bytes in
                guard let copy = bytes.baseAddress, memory.copy(size, from: address, into: copy) else { return }
                defer { memory.release(copy) }
                let buffer = UInt(bitPattern: copy)
                guard let metadata = memory.word(at: buffer + UInt(RuntimeLayout.existentialTypeOffset)),
                      let valueType = catalog.type(metadata: metadata),
                      let flags = catalog.valueWitnessFlags(of: valueType)
                else { return }
                if flags & RuntimeLayout.isNonInlineFlag == 0 {
                    guard self.size(of: valueType) <= RuntimeLayout.existentialTypeOffset else { return }
                    scanValue(at: buffer, type: valueType, path: path, ownership: ownership, holder: holder, depth: depth.intoValue)
                } else if let box = memory.word(at: buffer) {
                    scanBox(box, holding: valueType, path: path, ownership: ownership, holder: holder, depth: depth)
                }
            }
        }
    }

    /// Finds the references in the value of `type` that the box at `word` holds: an
    /// existential's out-of-line value, or an indirect case's payload. The type is the one the
    /// existential or the enum names, not the one the box's metadata describes: a box generic
    /// code made describes its value's type only in terms of the code's generic parameters
    /// (`SideEffectSubscription<Upstream>`), which the box does not keep.
    mutating func scanBox(
        _ word: UInt, holding type: Any.Type, path: String, ownership: ReferenceOwnership, holder: UInt, depth: Depth
    ) {
        // Only a word whose metadata checks out as a box's (or a closure context's: the
        // compiler describes the boxes it lays out as contexts that capture the value) is read.
        guard depth.isReadable, RuntimeLayout.isPlausibleAddress(word), let metadata = memory.word(at: word),
              let kind = catalog.heapKind(metadata: metadata)
        else { return }
        switch kind {
        case .box, .closureContext: break
        case .instance, .errorBox, .task: return
        }
        guard let size = openContainer(word, holder: holder) else { return }
        defer { openContainers.remove(word) }
        let offset = RuntimeLayout.boxValueOffset(alignment: alignment(of: type))
        guard offset + self.size(of: type) <= size else { return }
        scanValue(at: word + UInt(offset), type: type, path: path, ownership: ownership, holder: holder, depth: depth.intoContainer)
    }

    /// Starts reading the closure context or box at `word` for `holder`: its allocation size,
    /// or `nil` when it is not to be read (being read already, so it reaches itself; read
    /// already inside a system library's internals; or not sized by malloc).
    /// The caller removes it from ``openContainers`` once it has read it.
    mutating func openContainer(_ word: UInt, holder: UInt) -> Int? {
        // A system library's internals often reach one closure from several places (a data
        // task's handler, and the operation that will call it): it is read once, at its
        // shortest path.
        if interior != nil, interior?.visit(container: word) != true { return nil }
        guard let size = memory.allocationSize(at: word), openContainers.insert(word) else { return nil }
        noteRegion(of: holder, start: word, size: size)
        return size
    }

    /// Follows a word that may hold a reference: to a class instance (an edge), a weak
    /// reference's side table (a weak edge), or a closure context or box (whose contents
    /// become edges of `holder`).
    mutating func followWord(_ word: UInt, path: String, ownership: ReferenceOwnership, holder: UInt, depth: Depth) {
        guard RuntimeLayout.isPlausibleAddress(word) else { return }
        if let layout = instanceLayout(at: word) {
            if let collection = layout.collectionType, let shape = catalog.collectionShape(of: collection) {
                scanCollection(word, type: collection, shape: shape, path: path, ownership: ownership, holder: holder, depth: depth)
            } else {
                reach(word, layout, path: path, ownership: ownership, holder: holder)
            }
            return
        }
        // Only a word whose metadata checks out as a closure context's or a box's is sized
        // with malloc, and only then are its contents read. One that does is no weak
        // reference's side table (whose first word is an object, never such metadata), so it is
        // not tried as one: most words that are not objects are closure contexts.
        var container: MetadataCatalog.HeapKind?
        if depth.isReadable, let metadata = memory.word(at: word), let kind = catalog.heapKind(metadata: metadata) {
            if case .instance = kind {} else { container = kind }
        }
        if case .task? = container {
            if let layout = taskLayout(at: word) { reach(word, layout, path: path, ownership: ownership, holder: holder) }
            return
        }
        if container == nil, let object = objectOwningSideTable(word & ~RuntimeLayout.weakReferenceTagMask),
           let layout = instanceLayout(at: object) {
            reach(object, layout, path: path, ownership: .weak, holder: holder)
            return
        }
        guard let kind = container, let size = openContainer(word, holder: holder) else { return }
        defer { openContainers.remove(word) }
        switch kind {
        case .closureContext(let bindings, let firstCapture, let captures):
            // Captures follow one another, each at its alignment. A captured closure is two
            // words; a capture whose type is a generic parameter has the type its binding
            // names. One whose type cannot be told is read as one word (a class instance's
            // size), and its followers are read only when it was the last. (The compiler lays
            // out its boxes the same way, a captured `var`'s among them, so the path says
            // "closure" only when a function value led here. An existential's box or an
            // indirect case's is read by the type that names its value, ``scanBox``.)
            var offset = firstCapture
            for (index, capture) in captures.enumerated() {
                let captureOwnership = ownership.through(capture.ownership)
                if capture.isThickFunction {
                    offset = (offset + 7) & ~7
                    guard offset + 2 * MemoryLayout<UInt>.size <= size else { return }
                    let contextWord = word + UInt(offset + RuntimeLayout.closureContextWordOffset)
                    if let context = memory.word(at: contextWord), context != 0 {
                        var function = memory.word(at: word + UInt(offset)) ?? 0
                        if capture.isAsyncFunction {
                            function = memory.uint32(at: function).map { RuntimeLayout.asyncFunctionEntry(function, relative: Int32(bitPattern: $0)) } ?? 0
                        }
                        followClosure(function: function, context: context, path: path,
                                      ownership: captureOwnership, holder: holder, depth: depth.intoContainer)
                    }
                    offset += 2 * MemoryLayout<UInt>.size
                    // An `@isolated(any)` closure's isolation is not read, nor what follows it.
                    guard !capture.isIsolatedFunction || index == captures.count - 1 else { return }
                    continue
                }
                let bound = capture.binding.flatMap { binding in
                    memory.word(at: word + UInt(bindings + binding * MemoryLayout<UInt>.size)).flatMap(catalog.type(metadata:))
                }
                guard let type = capture.type ?? bound else {
                    let aligned = (offset + 7) & ~7
                    if aligned + 8 <= size, let inner = memory.word(at: word + UInt(aligned)) {
                        followWord(inner, path: path, ownership: captureOwnership, holder: holder, depth: depth.intoContainer)
                    }
                    guard index == captures.count - 1 else { return }
                    continue
                }
                let alignment = self.alignment(of: type)
                offset = (offset + alignment - 1) & ~(alignment - 1)
                guard offset + self.size(of: type) <= size else { return }
                scanValue(at: word + UInt(offset), type: type, path: path, ownership: captureOwnership,
                          holder: holder, depth: depth.intoContainer)
                offset += self.size(of: type)
            }
        case .box(let offset, let boxed):
            guard offset + self.size(of: boxed) <= size else { return }
            scanValue(at: word + UInt(offset), type: boxed, path: path, ownership: ownership, holder: holder, depth: depth.intoContainer)
        case .errorBox:
            guard let boxed = memory.word(at: word + UInt(RuntimeLayout.errorBoxTypeOffset)).flatMap(catalog.type(metadata:))
            else { return }
            let alignment = self.alignment(of: boxed)
            let offset = (RuntimeLayout.errorBoxHeaderSize + alignment - 1) & ~(alignment - 1)
            guard offset + self.size(of: boxed) <= size else { return }
            scanValue(at: word + UInt(offset), type: boxed, path: path, ownership: ownership, holder: holder, depth: depth.intoContainer)
        case .instance, .task:
            return
        }
    }

    /// Whether the walk reached its object limit: a huge collection's remaining elements are
    /// not read then.
    var isFull: Bool { graph.nodes.count >= objectLimit }

    /// `[0]`, `[1]`, …: the paths of the first elements of a collection, made once.
    static let elementPaths = (0..<1_024).map { "[\($0)]" }

    /// The path of element `index`.
    func elementPath(_ index: Int) -> String {
        index < Self.elementPaths.count ? Self.elementPaths[index] : "[\(index)]"
    }

    /// Follows the context of a closure whose function is `function`: the references found in
    /// it are `holder`'s, through the closure, and name the innermost closure's function
    /// (a closure a thunk wraps is captured by the thunk's context).
    mutating func followClosure(
        function: UInt, context: UInt, path: String, ownership: ReferenceOwnership, holder: UInt, depth: Depth
    ) {
        let outer = closureFunction
        closureFunction = function
        defer { closureFunction = outer }
        followWord(context, path: closurePath(path), ownership: ownership, holder: holder, depth: depth)
    }

    func closurePath(_ path: String) -> String {
        path.hasSuffix(" (closure)") ? path : catalog.closurePaths.joined(to: path)
    }

    // MARK: Collections

    mutating func scanCollection(
        _ storage: UInt, type: Any.Type, shape: CollectionShape, path: String, ownership: ReferenceOwnership,
        holder: UInt, depth: Depth
    ) {
        guard instanceLayout(at: storage) != nil,
              let count = memory.word(at: storage + UInt(shape.countOffset)), count > 0, count < 1 << 24
        else { return }
        let limit = memory.allocationSize(at: storage).map { storage + UInt($0) }
        // A collection inside a system library's internals is not drawn: its elements count
        // as the library object's own, at paths like `observers[2]`.
        let elementHolder: UInt, elementOwnership: ReferenceOwnership
        var elementPathPrefix = ""
        if interior != nil {
            guard interior?.visit(container: storage) == true else { return }
            (elementHolder, elementOwnership, elementPathPrefix) = (holder, ownership, path)
        } else {
            if !nodeAddresses.contains(storage) {
                guard graph.nodes.count < objectLimit else { return }
                nodeAddresses.insert(storage)
                graph.nodes[storage] = HeapGraph.Node(
                    address: storage, typeName: _typeName(type, qualified: true), isCollection: true, isOpaque: false,
                    counts: counts(of: storage)
                )
            }
            addReference(from: holder, to: storage, path: path, ownership: ownership)
            // A collection is part of the value of the object that holds it: its elements are
            // read again with it, once.
            guard graph.markRead(storage) != nil else { return }
            // Elements that hold no reference change nothing in the graph: a history of ten
            // thousand integers is not read again at every snapshot.
            let holdsReferences = switch shape {
            case .array(let element), .set(let element): catalog.mayHoldReferences(element)
            case .dictionary(let key, let value): catalog.mayHoldReferences(key) || catalog.mayHoldReferences(value)
            }
            if holdsReferences, let limit { noteRegion(of: storage, start: storage, size: Int(limit - storage)) }
            (elementHolder, elementOwnership) = (storage, .strong)
        }
        // The elements of a collection drawn apart are the collection's references, not those
        // of a closure that captured it.
        let closure = closureFunction
        if elementHolder == storage { closureFunction = 0 }
        defer { closureFunction = closure }
        func elementPath(_ element: String) -> String {
            elementPathPrefix.isEmpty ? element : LibraryInterior.path(elementPathPrefix, element)
        }

        /// Whether `count` elements of `stride` bytes from `start` lie inside the allocation.
        func fits(_ start: UInt, _ count: Int, _ stride: Int) -> Bool {
            guard RuntimeLayout.isInAddressRange(start), start >= storage + UInt(RuntimeLayout.objectHeaderSize)
            else { return false }
            let (length, overflow) = count.multipliedReportingOverflow(by: stride)
            guard !overflow, length >= 0, length < 1 << 32 else { return false }
            guard let limit else { return length < 1 << 24 }
            return start + UInt(length) <= limit
        }
        switch shape {
        case .array(let element):
            guard catalog.mayHoldReferences(element) else { return }
            let stride = self.stride(of: element)
            let first = storage + UInt(RuntimeLayout.arrayElementsOffset)
            guard stride > 0, fits(first, Int(count), stride) else { return }
            for index in 0..<Int(count) where !isFull {
                scanValue(at: first + UInt(index * stride), type: element, path: elementPath(self.elementPath(index)),
                          ownership: elementOwnership, holder: elementHolder, depth: depth.intoContainer)
            }
        case .set(let element):
            guard catalog.mayHoldReferences(element), let elements = memory.word(at: storage + UInt(RuntimeLayout.setElementsPointerOffset)) else { return }
            for (ordinal, bucket) in occupiedBuckets(storage, bitmap: RuntimeLayout.setBitmapOffset).enumerated() where !isFull {
                let stride = self.stride(of: element)
                guard stride > 0, fits(elements, bucket + 1, stride) else { return }
                scanValue(at: elements + UInt(bucket * stride), type: element, path: elementPath(self.elementPath(ordinal)),
                          ownership: elementOwnership, holder: elementHolder, depth: depth.intoContainer)
            }
        case .dictionary(let key, let value):
            guard let keys = memory.word(at: storage + UInt(RuntimeLayout.dictionaryKeysPointerOffset)),
                  let values = memory.word(at: storage + UInt(RuntimeLayout.dictionaryValuesPointerOffset))
            else { return }
            let keyStride = catalog.mayHoldReferences(key) ? stride(of: key) : 0
            let valueStride = catalog.mayHoldReferences(value) ? stride(of: value) : 0
            for (ordinal, bucket) in occupiedBuckets(storage, bitmap: RuntimeLayout.dictionaryBitmapOffset).enumerated() where !isFull {
                if keyStride > 0, fits(keys, bucket + 1, keyStride) {
                    scanValue(at: keys + UInt(bucket * keyStride), type: key, path: elementPath("key [\(ordinal)]"),
                              ownership: elementOwnership, holder: elementHolder, depth: depth.intoContainer)
                }
                if valueStride > 0, fits(values, bucket + 1, valueStride) {
                    scanValue(at: values + UInt(bucket * valueStride), type: value, path: elementPath(self.elementPath(ordinal)),
                              ownership: elementOwnership, holder: elementHolder, depth: depth.intoContainer)
                }
            }
        }
    }

    /// The occupied buckets of a set's or dictionary's storage, from its bitmap.
    func occupiedBuckets(_ storage: UInt, bitmap offset: Int) -> [Int] {
        guard let scale = memory.byte(at: storage + UInt(RuntimeLayout.hashedScaleOffset)), scale < 32 else { return [] }
        let bucketCount = 1 << Int(scale)
        var buckets: [Int] = []
        for wordIndex in 0..<((bucketCount + 63) / 64) {
            guard let word = memory.word(at: storage + UInt(offset + wordIndex * 8)) else { return [] }
            for bit in 0..<64 where word & (1 << UInt(bit)) != 0 {
                let bucket = wordIndex * 64 + bit
                if bucket < bucketCount { buckets.append(bucket) }
            }
        }
        return buckets
    }

    func size(of type: Any.Type) -> Int {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        return size(type)
    }

    func alignment(of type: Any.Type) -> Int {
        func alignment<T>(_: T.Type) -> Int { MemoryLayout<T>.alignment }
        return alignment(type)
    }

    func stride(of type: Any.Type) -> Int {
        func stride<T>(_: T.Type) -> Int { MemoryLayout<T>.stride }
        return stride(type)
    }
}
