import CLifelineHeap

/// Reads this process's memory without ever faulting, and knows what is mapped.
///
/// Every read goes through `process_vm_readv`, which reports an unmapped address as a failed
/// read. Reads are answered from whole 4 KiB pages, each copied with one system call the first
/// time the inspection touches it (``PageCache``); a page that fails to read stays unreadable
/// for the rest of the inspection. A copied page is a snapshot: a later read of it sees the
/// bytes as they were when it was copied, as a racy read would, so what it yields is validated
/// like any other word, and it is never dereferenced.
///
/// The mappings come from `/proc/self/maps`. They decide where malloc chunk headers are looked
/// for and which addresses lie in a loaded image. An inspector keeps them for its next
/// inspection (``init(reusing:)``), since reading them costs more than a small inspection, and
/// reads them again, once per inspection, the first time they fall short: an address in no
/// mapping, a heap address that is not writable, or a chunk that ends past its mapping (the
/// main heap grew, a thread arena made more of itself writable). A reading left from an earlier
/// inspection can only fall short that way, so no object is missed because of it.
///
struct ProcessMemory {
    /// One mapped address range.
    struct Mapping {
        let range: Range<UInt>
        let readable: Bool
        let writable: Bool
        /// Anonymous or `[heap]`: where malloc puts its chunks.
        let isHeap: Bool
    }

    /// The mappings one inspection uses, and whether it read them itself.
    final class MappingTable {
        /// The mappings, sorted by start address.
        fileprivate(set) var mappings: [Mapping]
        /// Whether they were read during the current inspection.
        fileprivate var isFresh: Bool
        /// The position of the mapping the last look-up found: most look-ups ask about the
        /// heap mapping the one before asked about.
        fileprivate var lastFound = 0

        fileprivate init(mappings: [Mapping], isFresh: Bool) {
            self.mappings = mappings
            self.isFresh = isFresh
        }
    }

    /// The mappings, sorted by start address.
    var mappings: [Mapping] { table.mappings }
    /// The mappings, for the next inspection to reuse.
    let table: MappingTable
    private let pages = PageCache()

    /// Memory with the mappings read now.
    init() {
        table = MappingTable(mappings: Self.readMappings(), isFresh: true)
    }

    /// Memory with the mappings an earlier inspection read, read again the first time they
    /// fall short.
    init(reusing table: MappingTable) {
        table.isFresh = false
        self.table = table
    }

    private init(mappings: [Mapping]) {
        table = MappingTable(mappings: mappings, isFresh: true)
    }

    /// Memory with no mappings read, for a catalog made before its first inspection.
    static var empty: ProcessMemory { ProcessMemory(mappings: []) }

    /// Reads the mappings again, unless this inspection already did; whether it did now.
    private func refreshMappings() -> Bool {
        guard !table.isFresh else { return false }
        table.mappings = Self.readMappings()
        table.isFresh = true
        return true
    }

    /// Drops the copies of the pages read so far. Call it after asking the runtime for types:
    /// it may have made their metadata (a field's type, the first time it is asked for) on a
    /// page copied before, whose copy would show the metadata missing.
    func forgetCopies() {
        pages.forgetCopies()
    }

    /// The pages this inspection copied, by page number: what the next inspection of the same
    /// objects will touch again.
    var copiedPages: [UInt] { pages.copiedPages }

    /// Copies the pages `numbers` (page numbers, as ``copiedPages`` gives them) in a few system
    /// calls, ahead of the reads that will touch them.
    func prefetch(pages numbers: [UInt]) {
        pages.prefetch(numbers)
    }

    func word(at address: UInt) -> UInt? {
        guard address % 8 == 0 else { return nil }
        return pages.word(at: address)
    }

    func uint32(at address: UInt) -> UInt32? {
        pages.uint32(at: address)
    }

    func int32(at address: UInt) -> Int32? {
        uint32(at: address).map { Int32(bitPattern: $0) }
    }

    func byte(at address: UInt) -> UInt8? {
        pages.byte(at: address)
    }

    /// Copies `count` bytes at `address` into `buffer`, the walk's own memory; `false` when
    /// any of them is unmapped. Until ``release(_:)``, reads of `buffer` see it as it is, not
    /// a page copy made before the value was copied into it.
    func copy(_ count: Int, from address: UInt, into buffer: UnsafeMutableRawPointer) -> Bool {
        pages.copy(count, from: address, into: buffer)
    }

    /// Ends reading `buffer`, filled by ``copy(_:from:into:)``, before it is deallocated.
    func release(_ buffer: UnsafeMutableRawPointer) {
        pages.release(buffer)
    }

    /// A hash of the bytes of `regions`, each a heap object's, leaving out each one's reference
    /// count word (which every retain changes); `nil` when some of them cannot be read.
    func fingerprint(of regions: [Range<UInt>]) -> UInt64? {
        var hash = Self.emptyFingerprint
        for region in regions {
            guard addToFingerprint(region, &hash) else { return nil }
        }
        return hash
    }

    /// The fingerprint of no region, which ``addToFingerprint(_:_:)`` adds regions to.
    static let emptyFingerprint: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Adds the bytes of `region`, a heap object's, to the fingerprint `hash`, leaving out its
    /// reference count word; `false` when some of them cannot be read.
    func addToFingerprint(_ region: Range<UInt>, _ hash: inout UInt64) -> Bool {
        var address = region.lowerBound
        while address < region.upperBound {
            let offset = address - region.lowerBound
            if address % 8 == 0, region.upperBound - address >= 8 {
                // The words from here to the end of the region or of the page, read where the
                // page's copy holds them rather than one look-up each.
                let pageEnd = (address | UInt(PageCache.pageSize - 1)).addingReportingOverflow(1)
                let end = pageEnd.overflow ? region.upperBound : min(region.upperBound, pageEnd.partialValue)
                let words = Int((end - address) / 8)
                if let base = pages.copiedBytes(at: address, length: words * 8) {
                    for index in 0..<words where offset + UInt(index * 8) != UInt(RuntimeLayout.objectRefCountOffset) {
                        hash = (hash ^ base.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) &* 0x100_0000_01b3
                    }
                    address += UInt(words * 8)
                    continue
                }
            }
            if offset != UInt(RuntimeLayout.objectRefCountOffset) {
                let value: UInt64
                if address % 8 == 0, region.upperBound - address >= 8 {
                    guard let word = word(at: address) else { return false }
                    value = UInt64(word)
                } else {
                    guard let byte = byte(at: address) else { return false }
                    value = UInt64(byte)
                }
                hash = (hash ^ value) &* 0x100_0000_01b3
            }
            let (next, overflow) = address.addingReportingOverflow(address % 8 == 0 && region.upperBound - address >= 8 ? 8 : 1)
            guard !overflow else { break }
            address = next
        }
        return true
    }

    /// The address a 32-bit relative pointer stored at `address` points to.
    func relativePointer(at address: UInt) -> UInt? {
        guard let offset = int32(at: address), offset != 0 else { return nil }
        return UInt(bitPattern: Int(bitPattern: address) &+ Int(offset))
    }

    func mapping(containing address: UInt) -> Mapping? {
        if let mapping = cachedMapping(containing: address) { return mapping }
        return refreshMappings() ? cachedMapping(containing: address) : nil
    }

    private func cachedMapping(containing address: UInt) -> Mapping? {
        let mappings = table.mappings
        if table.lastFound < mappings.count, mappings[table.lastFound].range.contains(address) { return mappings[table.lastFound] }
        var low = 0, high = mappings.count
        while low < high {
            let middle = (low + high) / 2
            if mappings[middle].range.upperBound <= address {
                low = middle + 1
            } else {
                high = middle
            }
        }
        guard low < mappings.count, mappings[low].range.contains(address) else { return nil }
        table.lastFound = low
        return mappings[low]
    }

    /// The usable size of the malloc allocation at `pointer`, what `malloc_usable_size` would
    /// say, or `nil` when `pointer` is not the start of a chunk malloc could have handed out in
    /// a writable heap mapping.
    ///
    /// It is computed from the chunk's header and the next chunk's, read like any other
    /// memory (the way glibc's `malloc_usable_size` computes it; see
    /// ``RuntimeLayout`` for the chunk layout), so no guess ever reaches malloc: a wrong one
    /// costs a `nil` or a size that fails validation, never a fault. A chunk that is free (the
    /// next chunk does not mark it in use) has a usable size of 0, as with malloc.
    func allocationSize(at pointer: UInt) -> Int? {
        guard RuntimeLayout.isPlausibleAddress(pointer), pointer % RuntimeLayout.mallocAlignment == 0,
              let mapping = mapping(containing: pointer), mapping.isHeap
        else { return nil }
        guard mapping.writable else { return refreshMappings() ? allocationSize(at: pointer) : nil }
        guard pointer >= mapping.range.lowerBound + RuntimeLayout.chunkHeaderSize else { return nil }
        let chunk = pointer - RuntimeLayout.chunkHeaderSize
        guard let header = word(at: chunk + RuntimeLayout.chunkSizeOffset) else { return nil }
        let chunkSize = header & ~RuntimeLayout.chunkFlagBits
        guard chunkSize >= RuntimeLayout.minimumChunkSize, chunkSize % RuntimeLayout.mallocAlignment == 0,
              chunkSize < RuntimeLayout.addressLimit
        else { return nil }
        let (end, overflow) = chunk.addingReportingOverflow(chunkSize)
        guard !overflow else { return nil }
        guard end <= mapping.range.upperBound else { return refreshMappings() ? allocationSize(at: pointer) : nil }
        if header & RuntimeLayout.chunkMmappedBit != 0 {
            return Int(chunkSize - RuntimeLayout.mmappedChunkOverhead)
        }
        // The next chunk's size word says whether this chunk is in use.
        guard end + RuntimeLayout.chunkHeaderSize <= mapping.range.upperBound,
              let next = word(at: end + RuntimeLayout.chunkSizeOffset)
        else { return nil }
        guard next & RuntimeLayout.chunkPreviousInUseBit != 0 else { return 0 }
        return Int(chunkSize - RuntimeLayout.inUseChunkOverhead)
    }

    private static func readMappings() -> [Mapping] {
        var capacity = 512
        while true {
            var lines = [lifeline_heap_mapping](repeating: lifeline_heap_mapping(), count: capacity)
            let count = lines.withUnsafeMutableBufferPointer { lifeline_heap_read_mappings($0.baseAddress, capacity) }
            guard count >= 0 else { return [] }
            guard count <= capacity else {
                // The file grew past the room given: read it again with more.
                capacity = Int(count) * 2
                continue
            }
            return lines[..<Int(count)].map { line in
                Mapping(
                    range: line.start..<line.end, readable: line.readable != 0, writable: line.writable != 0,
                    isHeap: line.anonymous_or_heap != 0
                )
            }.sorted { $0.range.lowerBound < $1.range.lowerBound }
        }
    }
}
