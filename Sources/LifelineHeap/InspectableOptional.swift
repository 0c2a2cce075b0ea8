/// `Optional`, so the inspector can look through it at the wrapped type.
protocol InspectableOptional {
    static var wrappedType: Any.Type { get }
    /// Whether the optional needs a tag byte after its payload (its payload type has no spare
    /// bit patterns to spell `nil` with).
    static var hasTagByte: Bool { get }
}

extension Optional: InspectableOptional {
    static var wrappedType: Any.Type { Wrapped.self }
    static var hasTagByte: Bool { MemoryLayout<Wrapped?>.size > MemoryLayout<Wrapped>.size }
}
