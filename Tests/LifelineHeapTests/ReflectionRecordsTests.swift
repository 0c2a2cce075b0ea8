import Foundation
import Testing
@testable import LifelineHeap

/// The reflection records and descriptor layouts the inspector checks metadata against
/// (`ReflectionRecords`, `TypeDescriptor`, the value witness table in `RuntimeLayout`),
/// against live types.
@Suite struct ReflectionRecordsTests {
    final class Leaf {}
    struct Pair<First, Second> {
        var first: First
        var second: Second
    }
    final class GenericBox<Value> {
        var value: Value
        init(_ value: Value) { self.value = value }
    }
    /// A generic class whose superclass comes from another module, so its metadata's size is
    /// only known at run time.
    final class GenericEncoder<Value>: JSONEncoder, @unchecked Sendable {
        var value: Value?
    }

    final class ClosureHolder {
        let closure: () -> Int
        init(_ closure: @escaping () -> Int) { self.closure = closure }
    }

    var memory: ProcessMemory { ProcessMemory() }

    func metadata(_ type: Any.Type) -> UInt { unsafeBitCast(type, to: UInt.self) }

    func descriptor(ofClass type: AnyClass) throws -> TypeDescriptor {
        let address = try #require(memory.word(at: metadata(type) + UInt(RuntimeLayout.classDescriptorOffset)))
        return try #require(TypeDescriptor(at: address, in: memory))
    }

    func descriptor(ofValue type: Any.Type) throws -> TypeDescriptor {
        let address = try #require(memory.word(at: metadata(type) + UInt(RuntimeLayout.valueDescriptorOffset)))
        return try #require(TypeDescriptor(at: address, in: memory))
    }

    @Test func theLoadedImagesDeclareTheirTypes() throws {
        #expect(try descriptor(ofClass: Leaf.self).kind == RuntimeLayout.classDescriptorKind)
        #expect(try descriptor(ofClass: JSONEncoder.self).kind == RuntimeLayout.classDescriptorKind)
        #expect(try descriptor(ofValue: Pair<Int, Int>.self).kind == RuntimeLayout.structDescriptorKind)
        #expect(try descriptor(ofValue: Int?.self).kind == RuntimeLayout.enumDescriptorKind)
        #expect(try descriptor(ofValue: String.self).kind == RuntimeLayout.structDescriptorKind)
        let leaf = Leaf()
        #expect(!ReflectionRecords.isTypeDescriptor(HeapInspector.address(of: leaf)))
        let inside = try descriptor(ofClass: Leaf.self).address + 4
        #expect(!ReflectionRecords.isTypeDescriptor(inside))
        withExtendedLifetime(leaf) {}
    }

    @Test func genericArgumentsAreReadWhereTheDescriptorSays() throws {
        #expect(try descriptor(ofClass: Leaf.self).genericArguments(ofMetadata: metadata(Leaf.self), in: memory) == [])
        let box = GenericBox<Leaf>.self
        #expect(try descriptor(ofClass: box).genericArguments(ofMetadata: metadata(box), in: memory) == [metadata(Leaf.self)])
        let encoder = GenericEncoder<Pair<Int, Leaf>>.self
        #expect(try descriptor(ofClass: encoder).genericArguments(ofMetadata: metadata(encoder), in: memory)
            == [metadata(Pair<Int, Leaf>.self)], "a resilient superclass: the offset is stored at run time")
        let pair = Pair<String, Leaf>.self
        #expect(try descriptor(ofValue: pair).genericArguments(ofMetadata: metadata(pair), in: memory)
            == [metadata(String.self), metadata(Leaf.self)])
        let optional = Leaf?.self
        #expect(try descriptor(ofValue: optional).genericArguments(ofMetadata: metadata(optional), in: memory)
            == [metadata(Leaf.self)])
    }

    @Test func closureCaptureDescriptorsAndTheirTypeNamesAreDeclared() throws {
        let leaf = Leaf()
        let count = Int.random(in: 1...10)
        let holder = ClosureHolder { count + (leaf === leaf ? 1 : 0) }
        let context = try #require(memory.word(at: HeapInspector.address(of: holder) + UInt(RuntimeLayout.objectHeaderSize)
            + UInt(RuntimeLayout.closureContextWordOffset)))
        let contextMetadata = try #require(memory.word(at: context))
        #expect(memory.word(at: contextMetadata) == RuntimeLayout.closureContextMetadataKind)
        let descriptor = try #require(memory.word(at: contextMetadata + UInt(RuntimeLayout.captureDescriptorOffset)))
        #expect(ReflectionRecords.isCaptureDescriptor(descriptor))
        #expect(!ReflectionRecords.isCaptureDescriptor(descriptor + 4))
        #expect(memory.uint32(at: descriptor + UInt(RuntimeLayout.captureCountOffset)) == 2)
        #expect(memory.uint32(at: descriptor + UInt(RuntimeLayout.captureMetadataSourceCountOffset)) == 0)
        for index in 0..<2 {
            let name = try #require(memory.relativePointer(
                at: descriptor + UInt(RuntimeLayout.captureRecordsOffset + index * RuntimeLayout.captureRecordSize)
            ))
            #expect(ReflectionRecords.isInTypeReferences(name))
            #expect(MangledName.type(at: name, in: memory) != nil)
        }
        withExtendedLifetime((holder, leaf)) {}
    }

    @Test(arguments: [
        (Int.self, 8, 8, 7), (UInt8.self, 1, 1, 0), (String.self, 16, 16, 7), (Pair<Int8, Int>.self, 16, 16, 7),
        (Pair<Int, Int8>.self, 9, 16, 7), (Leaf?.self, 8, 8, 7),
    ] as [(Any.Type, Int, Int, UInt32)])
    func valueWitnessTablesGiveSizeStrideAndAlignment(type: Any.Type, size: Int, stride: Int, alignmentMask: UInt32) throws {
        let witnesses = try #require(memory.word(at: metadata(type) - UInt(RuntimeLayout.valueWitnessTableOffsetBack)))
        #expect(memory.word(at: witnesses + UInt(RuntimeLayout.valueWitnessSizeOffset)) == UInt(size))
        #expect(memory.word(at: witnesses + UInt(RuntimeLayout.valueWitnessStrideOffset)) == UInt(stride))
        #expect(memory.uint32(at: witnesses + UInt(RuntimeLayout.valueWitnessFlagsOffset)).map { $0 & RuntimeLayout.alignmentMask }
            == alignmentMask)
    }
}
