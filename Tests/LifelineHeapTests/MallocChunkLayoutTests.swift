#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import LifelineHeap

/// The glibc chunk layout `RuntimeLayout` describes: `ProcessMemory.allocationSize(at:)`
/// computes from the chunk headers what `malloc_usable_size` says, for small chunks, large
/// ones and mmapped ones.
@Suite struct MallocChunkLayoutTests {
    final class Probe {
        var fields = (0, 0, 0)
    }

    /// glibc's `malloc_usable_size`, which Glibc's module map leaves out (it is in malloc.h).
    let mallocUsableSize: @convention(c) (UnsafeMutableRawPointer?) -> Int

    init() throws {
        let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size"))
        mallocUsableSize = unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer?) -> Int).self)
    }

    @Test(arguments: [1, 24, 40, 100, 1_000, 5_000, 200_000, 1 << 21])
    func theUsableSizeComesFromTheChunkHeaders(byteCount: Int) throws {
        let pointer = try #require(malloc(byteCount))
        defer { free(pointer) }
        let expected = mallocUsableSize(pointer)
        #expect(ProcessMemory().allocationSize(at: UInt(bitPattern: pointer)) == expected)
        #expect(expected >= byteCount)
    }

    @Test func aSwiftObjectIsAMallocAllocation() {
        let probe = Probe()
        let address = HeapInspector.address(of: probe)
        let expected = mallocUsableSize(UnsafeMutableRawPointer(bitPattern: address))
        #expect(ProcessMemory().allocationSize(at: address) == expected)
        withExtendedLifetime(probe) {}
    }

    @Test func anAddressInsideAnAllocationIsNoChunk() throws {
        let pointer = try #require(malloc(256))
        defer { free(pointer) }
        memset(pointer, 0, 256)
        #expect(ProcessMemory().allocationSize(at: UInt(bitPattern: pointer) + 64) == nil)
    }
}
