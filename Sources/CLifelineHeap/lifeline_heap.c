#define _GNU_SOURCE
#include "lifeline_heap.h"
#include <stdatomic.h>

static _Atomic uint64_t read_count;

uint64_t lifeline_heap_read_count(void) {
    return atomic_load_explicit(&read_count, memory_order_relaxed);
}

#if defined(__linux__)
#include <fcntl.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

int lifeline_heap_process_id(void) {
    return (int)getpid();
}

int lifeline_heap_read(int process, uintptr_t address, void *buffer, size_t length) {
    if (length == 0) return 1;
    atomic_fetch_add_explicit(&read_count, 1, memory_order_relaxed);
    struct iovec local = { buffer, length };
    struct iovec remote = { (void *)address, length };
    ssize_t copied = process_vm_readv((pid_t)process, &local, 1, &remote, 1, 0);
    return copied == (ssize_t)length;
}
size_t lifeline_heap_read_pages(int process, const uintptr_t *addresses, void *const *buffers, size_t count, size_t page_size) {
    size_t done = 0;
    while (done < count) {
        struct iovec local[64], remote[64];
        size_t batch = count - done < 64 ? count - done : 64;
        for (size_t index = 0; index < batch; index++) {
            local[index] = (struct iovec){ buffers[done + index], page_size };
            remote[index] = (struct iovec){ (void *)addresses[done + index], page_size };
        }
        atomic_fetch_add_explicit(&read_count, 1, memory_order_relaxed);
        ssize_t copied = process_vm_readv((pid_t)process, local, batch, remote, batch, 0);
        size_t whole = copied > 0 ? (size_t)copied / page_size : 0;
        done += whole;
        if (whole < batch) break;
    }
    return done;
}

/// Parses the hexadecimal number at `*cursor`, moving past it. 0 digits or more than 16 fail.
static int parse_hexadecimal(const char **cursor, const char *end, uintptr_t *value) {
    const char *p = *cursor;
    uintptr_t result = 0;
    int digits = 0;
    for (; p < end; p++, digits++) {
        char c = *p;
        int digit;
        if (c >= '0' && c <= '9') digit = c - '0';
        else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
        else break;
        if (digits == 16) return 0;
        result = result << 4 | (uintptr_t)digit;
    }
    if (digits == 0) return 0;
    *cursor = p;
    *value = result;
    return 1;
}

/// Parses one line, `start-end perms offset device inode [path]`.
static int parse_mapping(const char *line, const char *end, lifeline_heap_mapping *mapping) {
    const char *p = line;
    if (!parse_hexadecimal(&p, end, &mapping->start) || p >= end || *p != '-') return 0;
    p++;
    if (!parse_hexadecimal(&p, end, &mapping->end) || end - p < 3 || *p != ' ') return 0;
    p++;
    mapping->readable = p[0] == 'r';
    mapping->writable = p[1] == 'w';
    // Skip the permissions, offset, device and inode fields.
    for (int field = 0; field < 4; field++) {
        while (p < end && *p != ' ') p++;
        while (p < end && *p == ' ') p++;
    }
    const char heap[] = "[heap]";
    size_t path_length = (size_t)(end - p);
    mapping->anonymous_or_heap = path_length == 0
        || (path_length == sizeof heap - 1 && memcmp(p, heap, path_length) == 0);
    return mapping->start < mapping->end;
}

long lifeline_heap_read_mappings(lifeline_heap_mapping *mappings, size_t capacity) {
    int descriptor = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return -1;
    size_t size = 0, room = 65536;
    char *text = malloc(room);
    while (text != NULL) {
        if (size == room) {
            char *grown = realloc(text, room * 2);
            if (grown == NULL) break;
            text = grown;
            room *= 2;
        }
        ssize_t count = read(descriptor, text + size, room - size);
        if (count <= 0) break;
        size += (size_t)count;
    }
    close(descriptor);
    if (text == NULL) return -1;
    long lines = 0;
    const char *end = text + size;
    for (const char *line = text; line < end;) {
        const char *newline = memchr(line, '\n', (size_t)(end - line));
        const char *line_end = newline != NULL ? newline : end;
        lifeline_heap_mapping mapping;
        if (parse_mapping(line, line_end, &mapping)) {
            if ((size_t)lines < capacity) mappings[lines] = mapping;
            lines++;
        }
        line = line_end + 1;
    }
    free(text);
    return lines;
}
/// The Swift runtime's `MetadataSections` (swift/shims/MetadataSections.h): one per image.
struct metadata_section_range {
    uintptr_t start;
    size_t length;
};

struct metadata_sections {
    uintptr_t version;
    const void *base_address;
    void *unused0;
    void *unused1;
    struct metadata_section_range swift5_protocols;
    struct metadata_section_range swift5_protocol_conformances;
    struct metadata_section_range swift5_type_metadata;
    struct metadata_section_range swift5_typeref;
    struct metadata_section_range swift5_reflstr;
    struct metadata_section_range swift5_fieldmd;
    struct metadata_section_range swift5_assocty;
    struct metadata_section_range swift5_replace;
    struct metadata_section_range swift5_replac2;
    struct metadata_section_range swift5_builtin;
    struct metadata_section_range swift5_capture;
};

/// Exported by the Swift runtime on ELF platforms (Swift Testing finds tests with it).
extern void swift_enumerateAllMetadataSections(
    _Bool (*body)(const struct metadata_sections *sections, void *context), void *context);

struct image_visit {
    void (*visit)(const lifeline_heap_image *image, void *context);
    void *context;
};

static _Bool visit_sections(const struct metadata_sections *sections, void *context) {
    const struct image_visit *visit = context;
    lifeline_heap_image image = {
        (uintptr_t)sections->base_address,
        sections->swift5_type_metadata.start, sections->swift5_type_metadata.length,
        sections->swift5_typeref.start, sections->swift5_typeref.length,
        sections->swift5_capture.start, sections->swift5_capture.length,
    };
    visit->visit(&image, visit->context);
    return 1;
}

void lifeline_heap_enumerate_images(void (*visit)(const lifeline_heap_image *image, void *context), void *context) {
    struct image_visit state = { visit, context };
    swift_enumerateAllMetadataSections(visit_sections, &state);
}
#else
// Heap inspection reads memory only on Linux. Elsewhere every read fails, so inspection finds
// no objects rather than guessing at another platform's runtime layout.
int lifeline_heap_process_id(void) {
    return 0;
}

long lifeline_heap_read_mappings(lifeline_heap_mapping *mappings, size_t capacity) {
    (void)mappings;
    (void)capacity;
    return -1;
}

void lifeline_heap_enumerate_images(void (*visit)(const lifeline_heap_image *image, void *context), void *context) {
    (void)visit;
    (void)context;
}

int lifeline_heap_read(int process, uintptr_t address, void *buffer, size_t length) {
    (void)process;
    (void)address;
    (void)buffer;
    return length == 0;
}

size_t lifeline_heap_read_pages(int process, const uintptr_t *addresses, void *const *buffers, size_t count, size_t page_size) {
    (void)process; (void)addresses; (void)buffers; (void)count; (void)page_size;
    return 0;
}
#endif
