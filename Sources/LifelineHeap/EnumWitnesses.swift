/// The enum value witnesses that read which case an enum value holds: the only runtime
/// functions the inspector calls on value bytes, and only on its own copy of them.
///
/// `getEnumTag` reads the tag from the copy (from an extra tag byte, spare bits or an extra
/// inhabitant of the payload); `destructiveProjectEnumData` clears the tag bits a multi-payload
/// enum keeps inside its payload, leaving the payload's own bytes. Neither copies, retains or
/// releases anything, so the live value, and any object its bytes name, is left untouched.
struct EnumWitnesses {
    private typealias GetEnumTag = @convention(thin) (UnsafeRawPointer, UnsafeRawPointer) -> UInt32
    private typealias ProjectEnumData = @convention(thin) (UnsafeMutableRawPointer, UnsafeRawPointer) -> Void

    private let metadata: UnsafeRawPointer
    private let getEnumTag: GetEnumTag
    private let projectEnumData: ProjectEnumData

    /// The witnesses of `type` (enum or optional metadata the runtime handed out), or `nil`
    /// when its value witness table does not carry them.
    init?(of type: Any.Type, in memory: ProcessMemory) {
        let address = unsafeBitCast(type, to: UInt.self)
        guard let table = memory.word(at: address - UInt(RuntimeLayout.valueWitnessTableOffsetBack)),
              RuntimeLayout.isPlausibleAddress(table),
              let flags = memory.uint32(at: table + UInt(RuntimeLayout.valueWitnessFlagsOffset)),
              flags & RuntimeLayout.hasEnumWitnessesFlag != 0,
              let tag = memory.word(at: table + UInt(RuntimeLayout.getEnumTagOffset)).flatMap(UnsafeRawPointer.init(bitPattern:)),
              let project = memory.word(at: table + UInt(RuntimeLayout.destructiveProjectEnumDataOffset))
                .flatMap(UnsafeRawPointer.init(bitPattern:)),
              let metadata = UnsafeRawPointer(bitPattern: address)
        else { return nil }
        self.metadata = metadata
        getEnumTag = unsafeBitCast(tag, to: GetEnumTag.self)
        projectEnumData = unsafeBitCast(project, to: ProjectEnumData.self)
    }

    /// The tag of the enum value whose bytes were copied to `copy`: payload cases first, then
    /// empty cases, each in declaration order. Leaves the payload's bytes in `copy`, without
    /// the tag bits a multi-payload enum may keep there.
    func takeTag(ofCopy copy: UnsafeMutableRawPointer) -> Int {
        let tag = getEnumTag(copy, metadata)
        projectEnumData(copy, metadata)
        return Int(tag)
    }
}
