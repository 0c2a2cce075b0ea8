import CLifelineHeap
import Synchronization

/// What the loaded Swift images declare, from the sections the Swift runtime registered for
/// them: their type descriptors, closure capture descriptors and reflection type names.
///
/// The inspector hands the runtime a class's metadata (to list its fields, to name it) or a
/// mangled name (to resolve a capture's type) only when they lead back here: a descriptor the
/// compiler emitted, a name in a `swift5_typeref` section. Memory that merely looks like
/// metadata (a freed block, a buffer of user data) would otherwise reach the runtime's
/// demangler, which aborts the process on what it cannot read.
///
/// The records are read once per image and kept for the life of the process: image sections
/// are constant, and Swift images are never unloaded. An address not found makes the
/// records look for images loaded since.
enum ReflectionRecords {
    private struct Records: Sendable {
        var images: Set<UInt> = []
        var typeDescriptors: Set<UInt> = []
        var captureDescriptors: Set<UInt> = []
        var typeReferenceSections: [Range<UInt>] = []
    }

    private static let records = Mutex(Records())

    /// Whether `address` is the type descriptor of a class, struct or enum a loaded image
    /// declares.
    static func isTypeDescriptor(_ address: UInt) -> Bool {
        lookUp { $0.typeDescriptors.contains(address) }
    }

    /// Whether `address` is a closure capture descriptor a loaded image declares.
    static func isCaptureDescriptor(_ address: UInt) -> Bool {
        lookUp { $0.captureDescriptors.contains(address) }
    }

    /// Whether `address` lies in a loaded image's reflection type names.
    static func isInTypeReferences(_ address: UInt) -> Bool {
        lookUp { $0.typeReferenceSections.contains { $0.contains(address) } }
    }

    private static func lookUp(_ test: (Records) -> Bool) -> Bool {
        records.withLock { records in
            if test(records) { return true }
            guard addNewImages(to: &records) else { return false }
            return test(records)
        }
    }

    /// Adds the images loaded since the last look; `false` when there were none.
    private static func addNewImages(to records: inout Records) -> Bool {
        var images: [lifeline_heap_image] = []
        withUnsafeMutablePointer(to: &images) { pointer in
            lifeline_heap_enumerate_images({ image, context in
                guard let image, let context else { return }
                context.assumingMemoryBound(to: [lifeline_heap_image].self).pointee.append(image.pointee)
            }, pointer)
        }
        var added = false
        for image in images where records.images.insert(image.base).inserted {
            added = true
            records.captureDescriptors.formUnion(captureDescriptors(in: image))
            if image.type_references_length > 0 {
                records.typeReferenceSections.append(
                    image.type_references..<image.type_references + UInt(image.type_references_length)
                )
            }
            records.typeDescriptors.formUnion(typeDescriptors(in: image))
        }
        return added
    }

    /// The capture descriptors of the image's `swift5_capture` section, which holds them one
    /// after another.
    private static func captureDescriptors(in image: lifeline_heap_image) -> [UInt] {
        guard image.captures != 0, let start = UnsafeRawPointer(bitPattern: image.captures) else { return [] }
        var descriptors: [UInt] = []
        var offset = 0
        while offset + RuntimeLayout.captureDescriptorHeaderSize <= image.captures_length {
            let descriptor = start + offset
            let captures = Int(descriptor.loadUnaligned(fromByteOffset: RuntimeLayout.captureCountOffset, as: UInt32.self))
            let sources = Int(descriptor.loadUnaligned(
                fromByteOffset: RuntimeLayout.captureMetadataSourceCountOffset, as: UInt32.self
            ))
            let size = RuntimeLayout.captureDescriptorHeaderSize + captures * RuntimeLayout.captureRecordSize
                + sources * RuntimeLayout.metadataSourceRecordSize
            guard captures < 1 << 16, sources < 1 << 16, offset + size <= image.captures_length else { break }
            descriptors.append(UInt(bitPattern: descriptor))
            offset += size
        }
        return descriptors
    }

    /// The descriptors the image's type records point to. The records are the runtime's own
    /// registered image data, so they are read directly.
    private static func typeDescriptors(in image: lifeline_heap_image) -> [UInt] {
        guard image.type_records != 0, let start = UnsafeRawPointer(bitPattern: image.type_records) else { return [] }
        var descriptors: [UInt] = []
        for index in 0..<(image.type_records_length / 4) {
            let record = start + index * 4
            let value = record.loadUnaligned(as: Int32.self)
            let target = UInt(bitPattern: Int(bitPattern: UInt(bitPattern: record)) &+ Int(value & ~3))
            switch value & 3 {
            case RuntimeLayout.directTypeDescriptorRecord:
                descriptors.append(target)
            case RuntimeLayout.indirectTypeDescriptorRecord:
                if let slot = UnsafeRawPointer(bitPattern: target) {
                    descriptors.append(slot.loadUnaligned(as: UInt.self))
                }
            default:
                continue  // Objective-C class references
            }
        }
        return descriptors
    }
}
