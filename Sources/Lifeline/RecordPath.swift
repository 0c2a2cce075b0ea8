import CLifelineRuntime

/// The C entry points of the record path, as this build of the recorder reaches them.
///
/// A release build calls the runtime header's inline functions, which the compiler folds into
/// each caller. A debug build (what `swift test` builds: SwiftPM compiles every target at -O0,
/// C targets and the inline functions Swift imports included) calls their prebuilt copies
/// instead (`lifeline_record_object_prebuilt` and the others), which on x86_64 Linux are
/// assembly compiled once with -O2: compiled at -O0 into the caller, the inline path cost
/// about 420 instructions an event (callgrind, operator mode), the prebuilt copy about 80 and a
/// call. Transparent, not `@inline(__always)`: a debug build inlines only transparent functions,
/// and each Swift call it makes on the record path costs tens of instructions (its arguments'
/// debug copies, zeroed with `memset`).
enum RecordPath {
    /// `lifeline_record_object`.
    @_transparent
    static func record(_ log: UnsafeMutablePointer<lifeline_log>, _ event: UInt64, object: UInt32) -> UInt64 {
        #if DEBUG
        lifeline_record_object_prebuilt(log, event, object)
        #else
        lifeline_record_object(log, event, object)
        #endif
    }

    /// `lifeline_record_number`.
    @_transparent
    static func record(_ log: UnsafeMutablePointer<lifeline_log>, _ event: UInt64, object: UInt32, number: UInt64) -> UInt64 {
        #if DEBUG
        lifeline_record_number_prebuilt(log, event, object, number)
        #else
        lifeline_record_number(log, event, object, number)
        #endif
    }

    /// `lifeline_record_objects`.
    @_transparent
    static func record(_ log: UnsafeMutablePointer<lifeline_log>, _ event: UInt64, objects: UInt64) -> UInt64 {
        #if DEBUG
        lifeline_record_objects_prebuilt(log, event, objects)
        #else
        lifeline_record_objects(log, event, objects)
        #endif
    }

    /// `lifeline_scope_leave_delivery`.
    @_transparent
    static func leaveDelivery(_ log: UnsafeMutablePointer<lifeline_log>) -> UInt64 {
        #if DEBUG
        lifeline_scope_leave_delivery_prebuilt(log)
        #else
        lifeline_scope_leave_delivery(log)
        #endif
    }

    /// `lifeline_identity_lookup`.
    @_transparent
    static func identity(generation: UInt64, address: UnsafeRawPointer?, metadata: UnsafeRawPointer) -> UInt64 {
        #if DEBUG
        lifeline_identity_lookup_prebuilt(generation, address, metadata)
        #else
        lifeline_identity_lookup(generation, address, metadata)
        #endif
    }

    /// `lifeline_identity_lookup_value`.
    @_transparent
    static func identity(generation: UInt64, identifier: UInt64, metadata: UnsafeRawPointer) -> UInt64 {
        #if DEBUG
        lifeline_identity_lookup_value_prebuilt(generation, identifier, metadata)
        #else
        lifeline_identity_lookup_value(generation, identifier, metadata)
        #endif
    }
}
