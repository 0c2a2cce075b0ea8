import CLifelineHeap

/// The pages of this process's memory one inspection has read. A page is copied with one
/// `process_vm_readv` the first time a read touches it, and later reads are answered from the
/// copy; a page that fails to read is remembered as unreadable.
///
/// A copy is never refreshed, so it can be older than the memory: a later read of the page
/// sees what the page held when it was copied, as a read that raced with a writer would.
final class PageCache {
    /// Mappings start and end on page boundaries and pages are at least 4 KiB, so a 4 KiB
    /// block aligned to 4 KiB is either wholly readable or not at all.
    static let pageSize = 4096
    static let pageShift: UInt = 12
    /// The most pages one inspection copies (16 MiB); past it, reads go to memory one at a time.
    static let pageLimit = 4096
    /// Pages per slab: copies live in slabs, so a copy never moves once made.
    static let slabPages = 16

    private let process = lifeline_heap_process_id()
    /// The slot of each page read so far (its index among the copies), by page number; -1 for
    /// a page that could not be read.
    @exclusivity(unchecked) private var slots = AddressTable<Int>()
    /// The page number of each slot, in the order the pages were copied.
    @exclusivity(unchecked) private var copiedNumbers: [UInt] = []
    @exclusivity(unchecked) private var slabs: [UnsafeMutableRawPointer] = []
    @exclusivity(unchecked) private var copiedCount = 0
    /// The page the last read touched, which the next read usually touches again, and its
    /// copy (`nil` when it could not be read).
    @exclusivity(unchecked) private var lastNumber = UInt.max
    @exclusivity(unchecked) private var lastCopy: UnsafeRawPointer?
    /// The pages read last, by page number modulo their count, with their copies: a walk goes
    /// back and forth between an object's page and its type's metadata pages.
    /// (Raw memory rather than arrays: no bounds or uniqueness checks on the busiest read.)
    private let recentNumbers = UnsafeMutablePointer<UInt>.allocate(capacity: PageCache.recentPages)
    private let recentCopies = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: PageCache.recentPages)
    static let recentPages = 64
    /// The walk's own buffers holding copies of values (``copy(_:from:into:)``): read where
    /// they are, never from a page copy, which could predate what was copied into them.
    @exclusivity(unchecked) private var ownBuffers: [Range<UInt>] = []
    /// Where a read that crosses a page boundary, or comes past the page limit, lands.
    private let scratch = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)

    init() {
        recentNumbers.initialize(repeating: .max, count: Self.recentPages)
        recentCopies.initialize(repeating: nil, count: Self.recentPages)
    }

    deinit {
        for slab in slabs { slab.deallocate() }
        scratch.deallocate()
        recentNumbers.deallocate()
        recentCopies.deallocate()
    }

    /// Drops every copy, so that each page is read again the next time it is touched.
    func forgetCopies() {
        slots.removeAll()
        copiedNumbers.removeAll(keepingCapacity: true)
        copiedCount = 0
        lastNumber = .max
        lastCopy = nil
        recentNumbers.update(repeating: .max, count: Self.recentPages)
    }

    /// The pages copied so far, by page number, in the order they were copied.
    var copiedPages: [UInt] { copiedNumbers }

    /// Copies the pages `numbers` that are not copied yet, all in a few system calls rather than
    /// one each: what a walk that will touch them all would otherwise pay page by page, on pages
    /// scattered over a fragmented heap. A page that cannot be read is skipped and left for a
    /// read of its own to find unreadable.
    func prefetch(_ numbers: [UInt]) {
        var wanted = numbers.filter { slots[$0] == nil }
        wanted.sort()
        var unique = 0
        for number in wanted where unique == 0 || wanted[unique - 1] != number {
            wanted[unique] = number
            unique += 1
        }
        wanted.removeSubrange(min(unique, Self.pageLimit - copiedCount)...)
        var start = 0
        while start < wanted.count {
            let count = wanted.count - start
            while copiedCount + count > slabs.count * Self.slabPages {
                slabs.append(.allocate(byteCount: Self.slabPages * Self.pageSize, alignment: Self.pageSize))
            }
            let addresses = wanted[start...].map { UInt($0 << Self.pageShift) }
            let buffers = (0..<count).map { Optional(UnsafeMutableRawPointer(address(ofSlot: copiedCount + $0))) }
            let read = addresses.withUnsafeBufferPointer { addresses in
                buffers.withUnsafeBufferPointer { buffers in
                    lifeline_heap_read_pages(process, addresses.baseAddress, buffers.baseAddress, count, Self.pageSize)
                }
            }
            for offset in 0..<read {
                slots[wanted[start + offset]] = copiedCount
                copiedNumbers.append(wanted[start + offset])
                copiedCount += 1
            }
            start += read + 1
        }
    }

    func word(at address: UInt) -> UInt? {
        guard let bytes = bytes(at: address, length: 8) else { return nil }
        return UInt(lifeline_heap_load_uint64(bytes))
    }

    func uint32(at address: UInt) -> UInt32? {
        guard let bytes = bytes(at: address, length: 4) else { return nil }
        return lifeline_heap_load_uint32(bytes)
    }

    func byte(at address: UInt) -> UInt8? {
        guard let bytes = bytes(at: address, length: 1) else { return nil }
        return lifeline_heap_load_uint8(bytes)
    }

    /// Copies `count` bytes at `address` into `buffer`, from the pages' copies; `false` when
    /// any of them cannot be read. Until ``release(_:)``, reads of `buffer` read it where it
    /// is, so they see what was copied and any change made to it since.
    func copy(_ count: Int, from address: UInt, into buffer: UnsafeMutableRawPointer) -> Bool {
        guard copyPages(count, from: address, into: buffer) else { return false }
        let start = UInt(bitPattern: buffer)
        ownBuffers.append(start..<start + UInt(count))
        return true
    }

    /// Ends reading `buffer` where it is: its memory may go back to malloc.
    func release(_ buffer: UnsafeMutableRawPointer) {
        let start = UInt(bitPattern: buffer)
        // Buffers are released in the reverse order of their copies: the last one, nearly always.
        if ownBuffers.last?.lowerBound == start {
            ownBuffers.removeLast()
        } else {
            ownBuffers.removeAll { $0.lowerBound == start }
        }
    }

    private func copyPages(_ count: Int, from address: UInt, into buffer: UnsafeMutableRawPointer) -> Bool {
        if let own = ownBuffer(holding: address, count), let source = UnsafeRawPointer(bitPattern: own) {
            buffer.copyMemory(from: source, byteCount: count)
            return true
        }
        var done = 0
        while done < count {
            let current = address + UInt(done)
            let offset = Int(current & UInt(Self.pageSize - 1))
            let length = min(count - done, Self.pageSize - offset)
            switch page(current >> Self.pageShift) {
            case .copied(let copy): (buffer + done).copyMemory(from: copy + offset, byteCount: length)
            case .unreadable: return false
            case .uncached: guard lifeline_heap_read(process, current, buffer + done, length) == 1 else { return false }
            }
            done += length
        }
        return true
    }

    /// Where the `length` bytes at `address`, all in one page, lie in that page's copy; `nil`
    /// when the page is not copied (it cannot be read, or the cache is full) or they are in one
    /// of the walk's own buffers.
    func copiedBytes(at address: UInt, length: Int) -> UnsafeRawPointer? {
        let offset = Int(address & UInt(Self.pageSize - 1))
        guard offset + length <= Self.pageSize, ownBuffer(holding: address, length) == nil,
              case .copied(let copy) = page(address >> Self.pageShift)
        else { return nil }
        return copy + offset
    }

    /// Where the `length` bytes at `address` can be read (valid until the next read), or `nil`
    /// when they cannot be read.
    private func bytes(at address: UInt, length: Int) -> UnsafeRawPointer? {
        if let own = ownBuffer(holding: address, length) { return UnsafeRawPointer(bitPattern: own) }
        let number = address >> Self.pageShift
        let offset = Int(address & UInt(Self.pageSize - 1))
        guard offset + length <= Self.pageSize else { return readAlone(address, length) }
        if number != lastNumber {
            let way = Int(number & UInt(Self.recentPages - 1))
            if recentNumbers[way] == number {
                lastCopy = recentCopies[way]
            } else {
                switch page(number) {
                case .copied(let copy): lastCopy = copy
                case .unreadable: lastCopy = nil
                case .uncached: return readAlone(address, length)
                }
                recentNumbers[way] = number
                recentCopies[way] = lastCopy
            }
            lastNumber = number
        }
        guard let copy = lastCopy else { return nil }
        return copy + offset
    }

    /// `address` when its `length` bytes lie in one of the walk's own buffers.
    private func ownBuffer(holding address: UInt, _ length: Int) -> UInt? {
        guard !ownBuffers.isEmpty,
              ownBuffers.contains(where: { $0.contains(address) && address + UInt(length) <= $0.upperBound })
        else { return nil }
        return address
    }

    private enum Page {
        case copied(UnsafeRawPointer)
        case unreadable
        /// Not copied: the cache is full.
        case uncached
    }

    /// The page's copy, made now if need be.
    private func page(_ number: UInt) -> Page {
        if let slot = slots[number] {
            return slot < 0 ? .unreadable : .copied(UnsafeRawPointer(address(ofSlot: slot)))
        }
        guard copiedCount < Self.pageLimit else { return .uncached }
        if copiedCount == slabs.count * Self.slabPages {
            slabs.append(.allocate(byteCount: Self.slabPages * Self.pageSize, alignment: Self.pageSize))
        }
        let destination = address(ofSlot: copiedCount)
        guard lifeline_heap_read(process, number << Self.pageShift, destination, Self.pageSize) == 1 else {
            slots[number] = -1
            return .unreadable
        }
        slots[number] = copiedCount
        copiedNumbers.append(number)
        copiedCount += 1
        return .copied(UnsafeRawPointer(destination))
    }

    private func readAlone(_ address: UInt, _ length: Int) -> UnsafeRawPointer? {
        lifeline_heap_read(process, address, scratch, length) == 1 ? UnsafeRawPointer(scratch) : nil
    }

    private func address(ofSlot slot: Int) -> UnsafeMutableRawPointer {
        slabs[slot / Self.slabPages] + (slot % Self.slabPages) * Self.pageSize
    }
}
