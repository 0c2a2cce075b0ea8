#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import LifelineHeap

/// `ProcessMemory` answers reads from page copies: right across page boundaries, `nil` on
/// unmapped pages, the same answer for the same page throughout one inspection, and correct
/// past the cache's page limit.
@Suite struct ProcessMemoryTests {
    static let pageSize = PageCache.pageSize

    /// `pages` fresh anonymous pages, the last `inaccessible` of them mapped with no access.
    func withPages(_ pages: Int, inaccessible: Int = 0, _ body: (UnsafeMutableRawPointer) throws -> Void) throws {
        let length = pages * Self.pageSize
        let mapped = try #require(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        #expect(mapped != MAP_FAILED)
        defer { munmap(mapped, length) }
        if inaccessible > 0 {
            mprotect(mapped + (pages - inaccessible) * Self.pageSize, inaccessible * Self.pageSize, PROT_NONE)
        }
        try body(mapped)
    }

    @Test func readsThatCrossAPageBoundaryAreWhole() throws {
        try withPages(2) { base in
            base.storeBytes(of: 0xA1B2_C3D4, toByteOffset: Self.pageSize - 2, as: UInt32.self)
            let memory = ProcessMemory()
            #expect(memory.uint32(at: UInt(bitPattern: base) + UInt(Self.pageSize) - 2) == 0xA1B2_C3D4)
            #expect(memory.byte(at: UInt(bitPattern: base) + UInt(Self.pageSize) - 1) == 0xC3, "little-endian")
            #expect(memory.byte(at: UInt(bitPattern: base) + UInt(Self.pageSize)) == 0xB2)
        }
    }

    @Test func aPageWithNoAccessIsUnreadable() throws {
        try withPages(2, inaccessible: 1) { base in
            base.storeBytes(of: 42, toByteOffset: Self.pageSize - 8, as: UInt.self)
            let memory = ProcessMemory()
            let lastReadable = UInt(bitPattern: base) + UInt(Self.pageSize) - 8
            #expect(memory.word(at: lastReadable) == 42)
            #expect(memory.word(at: lastReadable + 8) == nil)
            #expect(memory.uint32(at: lastReadable + 6) == nil, "half readable is unreadable")
            #expect(memory.word(at: lastReadable) == 42)
        }
    }

    @Test func oneInspectionSeesAPageAsItWasFirstRead() throws {
        try withPages(1) { base in
            let address = UInt(bitPattern: base) + 64
            base.storeBytes(of: 1, toByteOffset: 64, as: UInt.self)
            let memory = ProcessMemory()
            #expect(memory.word(at: address) == 1)
            base.storeBytes(of: 2, toByteOffset: 64, as: UInt.self)
            #expect(memory.word(at: address) == 1, "the copy, like a read that raced with the write")
            #expect(ProcessMemory().word(at: address) == 2, "the next inspection reads the page again")
            memory.forgetCopies()
            #expect(memory.word(at: address) == 2)
        }
    }

    @Test func aValueCopiedIntoTheWalksOwnBufferIsReadAsCopiedNotFromAnOlderPageCopy() throws {
        try withPages(1) { base in
            let source = UInt(bitPattern: base) + 128
            base.storeBytes(of: 7, toByteOffset: 128, as: UInt.self)
            base.storeBytes(of: 8, toByteOffset: 136, as: UInt.self)
            let buffer = base + 512, second = base + 1024
            let memory = ProcessMemory()
            #expect(memory.word(at: UInt(bitPattern: buffer)) == 0, "the buffer's page is copied before the value")
            #expect(memory.copy(16, from: source, into: buffer))
            #expect(memory.word(at: UInt(bitPattern: buffer)) == 7)
            buffer.storeBytes(of: 9, toByteOffset: 8, as: UInt.self)
            #expect(memory.word(at: UInt(bitPattern: buffer) + 8) == 9, "a change made to the buffer is seen")
            #expect(memory.copy(16, from: UInt(bitPattern: buffer), into: second), "copied on from the buffer itself")
            #expect(memory.word(at: UInt(bitPattern: second) + 8) == 9)
            memory.release(second)
            memory.release(buffer)
            #expect(memory.word(at: UInt(bitPattern: buffer)) == 0, "released, the buffer is read from the page copy again")
        }
    }

    @Test func readsPastThePageLimitGoToMemory() throws {
        let pages = PageCache.pageLimit + 8
        try withPages(pages) { base in
            for page in 0..<pages { base.storeBytes(of: UInt(page), toByteOffset: page * Self.pageSize + 8, as: UInt.self) }
            let memory = ProcessMemory()
            let wrong = (0..<pages).filter { memory.word(at: UInt(bitPattern: base) + UInt($0 * Self.pageSize + 8)) != UInt($0) }
            #expect(wrong.isEmpty)
        }
    }

    @Test func aMappingMadeSinceTheLastReadingIsFound() throws {
        _ = ProcessMemory().mappings  // an inspection from before the mapping
        try withPages(4) { base in
            let mapping = try #require(ProcessMemory().mapping(containing: UInt(bitPattern: base) + 100))
            #expect(mapping.range.contains(UInt(bitPattern: base)))
            #expect(mapping.isHeap && mapping.writable)
        }
    }
}
