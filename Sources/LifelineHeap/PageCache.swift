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
    /// The most pages one inspection copies (16 MiB); past it, reads go to memory one at a time.
    static let pageLimit = 4096
    /// Pages per slab: copies live in slabs, so a copy never moves once made.
    static let slabPages = 64

    private enum Page {
        case copied(UnsafeRawPointer)
        case unreadable
        /// Not copied: the cache is full.
        case uncached
    }

    private let process = lifeline_heap_process_id()
    /// The slot of each page read so far (its index among the copies), by page number; -1 for
    /// a page that could not be read.
    private var slots: [UInt: Int] = [:]
    private var slabs: [UnsafeMutableRawPointer] = []
    private var copiedCount = 0
    /// The page the last read touched, which the next read usually touches again.
    private var lastNumber = UInt.max
    private var lastPage = Page.uncached

    deinit {
        for slab in slabs { slab.deallocate() }
    }

    /// Drops every copy, so that each page is read again the next time it is touched.
    func forgetCopies() {
        slots.removeAll(keepingCapacity: true)
        copiedCount = 0
        lastNumber = .max
        lastPage = .uncached
    }

    func word(at address: UInt) -> UInt? {
        switch location(of: address, length: 8) {
        case .copied(let bytes): return UInt(lifeline_heap_load_uint64(bytes))
        case .unreadable: return nil
        case .uncached: break
        }
        var value: UInt = 0
        return lifeline_heap_read(process, address, &value, 8) == 1 ? value : nil
    }

    func uint32(at address: UInt) -> UInt32? {
        switch location(of: address, length: 4) {
        case .copied(let bytes): return lifeline_heap_load_uint32(bytes)
        case .unreadable: return nil
        case .uncached: break
        }
        var value: UInt32 = 0
        return lifeline_heap_read(process, address, &value, 4) == 1 ? value : nil
    }

    func byte(at address: UInt) -> UInt8? {
        switch location(of: address, length: 1) {
        case .copied(let bytes): return lifeline_heap_load_uint8(bytes)
        case .unreadable: return nil
        case .uncached: break
        }
        var value: UInt8 = 0
        return lifeline_heap_read(process, address, &value, 1) == 1 ? value : nil
    }

    /// Where the copy of the `length` bytes at `address` is; `.uncached` when they cross a page
    /// boundary or the cache is full, and must be read from memory on their own.
    private func location(of address: UInt, length: Int) -> Page {
        let offset = Int(address % UInt(Self.pageSize))
        guard offset + length <= Self.pageSize else { return .uncached }
        switch page(address / UInt(Self.pageSize)) {
        case .copied(let base): return .copied(base + offset)
        case let other: return other
        }
    }

    private func page(_ number: UInt) -> Page {
        if number == lastNumber { return lastPage }
        let page: Page
        if let slot = slots[number] {
            page = slot < 0 ? .unreadable : .copied(UnsafeRawPointer(address(ofSlot: slot)))
        } else {
            page = copy(number)
        }
        lastNumber = number
        lastPage = page
        return page
    }

    private func copy(_ number: UInt) -> Page {
        guard copiedCount < Self.pageLimit else { return .uncached }
        if copiedCount == slabs.count * Self.slabPages {
            slabs.append(.allocate(byteCount: Self.slabPages * Self.pageSize, alignment: Self.pageSize))
        }
        let destination = address(ofSlot: copiedCount)
        guard lifeline_heap_read(process, number * UInt(Self.pageSize), destination, Self.pageSize) == 1 else {
            slots[number] = -1
            return .unreadable
        }
        slots[number] = copiedCount
        copiedCount += 1
        return .copied(UnsafeRawPointer(destination))
    }

    private func address(ofSlot slot: Int) -> UnsafeMutableRawPointer {
        slabs[slot / Self.slabPages] + (slot % Self.slabPages) * Self.pageSize
    }
}
