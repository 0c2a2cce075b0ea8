#ifndef LIFELINE_HEAP_H
#define LIFELINE_HEAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/// This process's id, for `lifeline_heap_read` (0 on platforms other than Linux).
int lifeline_heap_process_id(void);

/// Copies `length` bytes at `address` of process `process` (this process's id) into `buffer`
/// with process_vm_readv, which reports unmapped memory as an error instead of faulting.
/// Returns 1 when every byte was read, 0 otherwise (always 0 on platforms other than Linux).
int lifeline_heap_read(int process, uintptr_t address, void *buffer, size_t length);

/// Copies the `count` pages (`page_size` bytes each) at `addresses` into `buffers`, in order,
/// with one process_vm_readv per 64 pages: what one read of many scattered pages costs.
/// Returns how many of them, from the first, were read whole (the kernel stops at the first
/// page it cannot read; 0 on platforms other than Linux). Counts as one read per system call.
size_t lifeline_heap_read_pages(int process, const uintptr_t *addresses, void *const *buffers, size_t count, size_t page_size);

/// How many times `lifeline_heap_read` has been called in this process (each call is one
/// system call on Linux), for benchmarks.
uint64_t lifeline_heap_read_count(void);

/// The 8, 4 or 1 bytes at `bytes`, which need not be aligned: how a copied page is read.
static inline uint64_t lifeline_heap_load_uint64(const void *bytes) {
    uint64_t value;
    memcpy(&value, bytes, sizeof value);
    return value;
}

static inline uint32_t lifeline_heap_load_uint32(const void *bytes) {
    uint32_t value;
    memcpy(&value, bytes, sizeof value);
    return value;
}

static inline uint8_t lifeline_heap_load_uint8(const void *bytes) {
    return *(const uint8_t *)bytes;
}

/// One line of /proc/self/maps.
typedef struct {
    uintptr_t start;
    uintptr_t end;
    uint8_t readable;
    uint8_t writable;
    /// Anonymous (no path) or `[heap]`.
    uint8_t anonymous_or_heap;
} lifeline_heap_mapping;

/// Reads /proc/self/maps into `mappings`, at most `capacity` of them. Returns how many lines
/// the file held (more than `capacity` means the caller should call again with more room), or
/// -1 when it cannot be read (always -1 on platforms other than Linux).
long lifeline_heap_read_mappings(lifeline_heap_mapping *mappings, size_t capacity);

/// The reflection sections of one loaded Swift image, as the Swift runtime registered them.
typedef struct {
    uintptr_t base;
    /// `swift5_type_metadata`: 32-bit relative references to the image's type descriptors.
    uintptr_t type_records;
    size_t type_records_length;
    /// `swift5_typeref`: the mangled type names reflection metadata refers to.
    uintptr_t type_references;
    size_t type_references_length;
    /// `swift5_capture`: closure capture descriptors.
    uintptr_t captures;
    size_t captures_length;
} lifeline_heap_image;

/// Calls `visit` with each Swift image the runtime knows (through
/// `swift_enumerateAllMetadataSections`); never calls it on platforms other than Linux.
void lifeline_heap_enumerate_images(void (*visit)(const lifeline_heap_image *image, void *context), void *context);

/// How many writable segments of one image ``lifeline_heap_loaded_image`` holds.
#define LIFELINE_HEAP_WRITABLE_SEGMENTS 4

/// One image the dynamic loader loaded, and where its writable segments (its data and bss) are.
typedef struct {
    /// The file it was loaded from; empty for the program's executable.
    const char *path;
    /// What its symbols' values are relative to.
    uintptr_t base;
    uintptr_t writable_start[LIFELINE_HEAP_WRITABLE_SEGMENTS];
    uintptr_t writable_end[LIFELINE_HEAP_WRITABLE_SEGMENTS];
    size_t writable_count;
} lifeline_heap_loaded_image;

/// Calls `visit` with each image the dynamic loader has loaded (through `dl_iterate_phdr`); never
/// calls it on platforms other than Linux.
void lifeline_heap_enumerate_loaded_images(void (*visit)(const lifeline_heap_loaded_image *image, void *context), void *context);

/// Calls `visit` with each data symbol of the ELF file at `path`'s symbol table (`.symtab`)
/// whose name is a Swift variable's storage (`$s…vp`, or `$s…vpZ` for a static one): its name,
/// value (relative to the image's base) and size. The file is read, never mapped. Returns 1
/// when the file has a symbol table, 0 when it has none or cannot be read as a 64-bit
/// little-endian ELF file (always 0 on platforms other than Linux).
int lifeline_heap_enumerate_variable_symbols(
    const char *path, void (*visit)(const char *name, uint64_t value, uint64_t size, void *context), void *context
);

#endif
