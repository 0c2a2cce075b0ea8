import CLifelineHeap
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads this process's memory without ever faulting, and knows what is mapped.
///
/// Every read goes through `process_vm_readv`, which reports an unmapped address as a failed
/// read. The mappings come from `/proc/self/maps`, read once when the value is made; they only
/// decide where `malloc_usable_size` may be asked, since a read never needs them.
struct ProcessMemory {
    /// One mapped address range.
    struct Mapping {
        let range: Range<UInt>
        let readable: Bool
        let writable: Bool
        /// Anonymous or `[heap]`: where malloc puts its chunks.
        let isHeap: Bool
    }

    /// The mappings, sorted by start address.
    let mappings: [Mapping]

    init() {
        mappings = Self.readMappings()
    }

    func word(at address: UInt) -> UInt? {
        guard address % 8 == 0 else { return nil }
        var value: UInt = 0
        return lifeline_heap_read(address, &value, 8) == 1 ? value : nil
    }

    func uint32(at address: UInt) -> UInt32? {
        var value: UInt32 = 0
        return lifeline_heap_read(address, &value, 4) == 1 ? value : nil
    }

    func int32(at address: UInt) -> Int32? {
        uint32(at: address).map { Int32(bitPattern: $0) }
    }

    func byte(at address: UInt) -> UInt8? {
        var value: UInt8 = 0
        return lifeline_heap_read(address, &value, 1) == 1 ? value : nil
    }

    /// Copies `count` bytes at `address` into `buffer`; `false` when any of them is unmapped.
    func copy(_ count: Int, from address: UInt, into buffer: UnsafeMutableRawPointer) -> Bool {
        lifeline_heap_read(address, buffer, count) == 1
    }

    /// The address a 32-bit relative pointer stored at `address` points to.
    func relativePointer(at address: UInt) -> UInt? {
        guard let offset = int32(at: address), offset != 0 else { return nil }
        return UInt(bitPattern: Int(bitPattern: address) &+ Int(offset))
    }

    func mapping(containing address: UInt) -> Mapping? {
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
        return mappings[low]
    }

    /// The usable size of the malloc allocation at `pointer`, or `nil` when `pointer` is not
    /// the start of a chunk malloc could have handed out in a heap mapping.
    ///
    /// `malloc_usable_size` reads the chunk's header and, for a chunk that is not mmapped,
    /// the next chunk's header. Both are checked to lie in the same writable heap mapping
    /// before it is called, so a wrong guess costs a `nil`, never a fault.
    func allocationSize(at pointer: UInt) -> Int? {
        guard RuntimeLayout.isPlausibleAddress(pointer), pointer % 16 == 0,
              let mapping = mapping(containing: pointer), mapping.isHeap, mapping.writable,
              pointer >= mapping.range.lowerBound + 16, let header = word(at: pointer - 8)
        else { return nil }
        let chunkSize = header & ~0x7
        let isMmapped = header & 0x2 != 0
        guard chunkSize >= 32, chunkSize % 16 == 0, chunkSize < RuntimeLayout.addressLimit else { return nil }
        if !isMmapped {
            // The next chunk's header ends 16 bytes past this chunk's end.
            let chunk = pointer - 16
            let (next, overflow) = chunk.addingReportingOverflow(chunkSize + 16)
            guard !overflow, next <= mapping.range.upperBound else { return nil }
        }
        return lifeline_heap_allocation_size(pointer)
    }

    private static func readMappings() -> [Mapping] {
        let descriptor = open("/proc/self/maps", O_RDONLY)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        var mappings: [Mapping] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            // start-end perms offset device inode [path]
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5, let dash = fields[0].firstIndex(of: UInt8(ascii: "-")),
                  let start = hexadecimal(fields[0][..<dash]), let end = hexadecimal(fields[0][(dash + 1)...]),
                  fields[1].count >= 2
            else { continue }
            let permissions = Array(fields[1])
            let path = fields.count == 6 ? Array(fields[5].drop { $0 == UInt8(ascii: " ") }) : []
            mappings.append(Mapping(
                range: start..<end, readable: permissions[0] == UInt8(ascii: "r"),
                writable: permissions[1] == UInt8(ascii: "w"),
                isHeap: path.isEmpty || path == Array("[heap]".utf8)
            ))
        }
        return mappings.sorted { $0.range.lowerBound < $1.range.lowerBound }
    }

    private static func hexadecimal(_ digits: ArraySlice<UInt8>) -> UInt? {
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        var value: UInt = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt(digit - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return value
    }
}
