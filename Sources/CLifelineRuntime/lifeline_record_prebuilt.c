#include "lifeline_runtime.h"

// The record path's out-of-line copies (see lifeline_runtime.h, "prebuilt"). On x86_64 Linux,
// lifeline_record_prebuilt_x86_64_linux.S holds them as this file compiled with -O2 once
// (scripts/record-assembly.sh writes it), so that a debug build, which compiles this target at
// -O0, still calls optimized code; elsewhere they are compiled here, at the build's level.
#if !(defined(__x86_64__) && defined(__linux__)) || defined(LIFELINE_GENERATING_ASSEMBLY)

uint64_t lifeline_record_object_prebuilt(lifeline_log *log, uint64_t event, uint32_t object) {
    return lifeline_record_object(log, event, object);
}

uint64_t lifeline_record_number_prebuilt(lifeline_log *log, uint64_t event, uint32_t object, uint64_t number) {
    return lifeline_record_number(log, event, object, number);
}

uint64_t lifeline_record_objects_prebuilt(lifeline_log *log, uint64_t event, uint64_t objects) {
    return lifeline_record_objects(log, event, objects);
}

uint64_t lifeline_scope_leave_delivery_prebuilt(const lifeline_log *log) {
    return lifeline_scope_leave_delivery(log);
}

uint64_t lifeline_identity_lookup_prebuilt(uint64_t generation, const void *address, const void *metadata) {
    return lifeline_identity_lookup(generation, address, metadata);
}

uint64_t lifeline_identity_lookup_value_prebuilt(uint64_t generation, uint64_t identifier, const void *metadata) {
    return lifeline_identity_lookup_value(generation, identifier, metadata);
}

#endif
