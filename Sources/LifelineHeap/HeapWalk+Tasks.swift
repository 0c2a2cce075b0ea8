extension HeapWalk {
    /// The layout of the Swift concurrency task at `address` (``RuntimeLayout/taskMetadataKind``),
    /// or `nil` for one the walk does not read: a child, task group or `async let` task, one
    /// whose future fragment does not name a result type the catalog knows, or one not in a
    /// malloc allocation large enough for its header.
    ///
    /// While the task runs, its one reference is its closure's context, at `operation` (the
    /// parameter of `Task.init(operation:)`), and it holds one reference to itself. Once it has
    /// completed it holds neither: the runtime released the context, whose stale address is
    /// left in the task's memory. The task's frames, in its own allocator, are not read.
    func taskLayout(at address: UInt) -> ClassLayout? {
        guard let flags = memory.uint32(at: address + UInt(RuntimeLayout.taskFlagsOffset)),
              flags & RuntimeLayout.taskIsFutureFlag != 0,
              flags & (RuntimeLayout.taskIsChildFlag | RuntimeLayout.taskIsGroupChildFlag | RuntimeLayout.taskIsAsyncLetFlag) == 0
        else { return nil }
        let fragment = address + UInt(RuntimeLayout.taskHeaderSize)
        guard let queue = memory.word(at: fragment + UInt(RuntimeLayout.futureWaitQueueOffset)),
              let metadata = memory.word(at: fragment + UInt(RuntimeLayout.futureResultTypeOffset)),
              let result = catalog.type(metadata: metadata)
        else { return nil }
        let contextOffset = RuntimeLayout.taskClosureContextOffset(resultSize: size(of: result), alignment: alignment(of: result))
        let headerSize = contextOffset + RuntimeLayout.futureContextPrefixSize - RuntimeLayout.closureContextPrefixOffset
        guard let allocated = memory.allocationSize(at: address), allocated >= headerSize else { return nil }
        let running = queue & RuntimeLayout.futureStatusMask == RuntimeLayout.futureRunningStatus
        let fields = running ? [ClassLayout.Field(name: "operation", offset: contextOffset, type: AnyObject.self, ownership: .strong)] : []
        return ClassLayout(
            type: AnyObject.self, typeName: HeapGraph.taskTypeName, instanceSize: headerSize, fields: fields, referenceFields: fields,
            isSystemLibrary: false, collectionType: nil, selfReferences: running ? 1 : 0
        )
    }
}
