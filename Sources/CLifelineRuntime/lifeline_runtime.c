#define _GNU_SOURCE
#include "lifeline_runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <execinfo.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

// libdispatch's C entry point. Declared here so that no dispatch header path is needed;
// DISPATCH_CURRENT_QUEUE_LABEL is NULL.
extern const char *dispatch_queue_get_label(void *queue);

// initial-exec: the recorder is linked into the program, so its thread-locals can be reached
// without a __tls_get_addr call on every event.
#define LIFELINE_THREAD_LOCAL static __thread __attribute__((tls_model("initial-exec")))

LIFELINE_THREAD_LOCAL uint64_t cached_tid;
LIFELINE_THREAD_LOCAL const char *cached_label;
LIFELINE_THREAD_LOCAL uint64_t cached_label_generation;
LIFELINE_THREAD_LOCAL uint32_t cached_queue_id;
LIFELINE_THREAD_LOCAL uint64_t declared_generation;

uint64_t lifeline_thread_id(void) {
    if (cached_tid == 0) {
        cached_tid = (uint64_t)syscall(SYS_gettid);
    }
    return cached_tid;
}

uint64_t lifeline_process_id(void) {
    return (uint64_t)getpid();
}

uint64_t lifeline_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t lifeline_cycle_counter(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return lifeline_monotonic_ns();
#endif
}

int lifeline_tsc_is_invariant(void) {
#if defined(__x86_64__)
    unsigned int eax, ebx, ecx, edx;
    if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u) {
        return 0;
    }
    __cpuid(0x80000007u, eax, ebx, ecx, edx);
    return (edx >> 8) & 1;
#else
    return 0;
#endif
}

uint64_t lifeline_tsc(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}

// An empty asm with a memory clobber: the compiler neither reorders stores across it nor merges
// the copies on either side into one memcpy. On x86 the processor keeps stores in program
// order; elsewhere the release fence does.
#define LIFELINE_STORE_BARRIER() do { __asm__ volatile("" ::: "memory"); __atomic_thread_fence(__ATOMIC_RELEASE); } while (0)

void lifeline_store_record(void *destination, const void *source, size_t length) {
    unsigned char *to = destination;
    const unsigned char *from = source;
    memcpy(to, from, 8);
    LIFELINE_STORE_BARRIER();
    if (length % 8 == 0) {
        // A record: whole words, then the last one's first 7 bytes.
        size_t last = length - 8;
        for (size_t done = 8; done < last; done += 8) {
            memcpy(to + done, from + done, 8);
        }
        memcpy(to + last, from + last, 7);
    } else {
        memcpy(to + 8, from + 8, length - 9);
    }
    LIFELINE_STORE_BARRIER();
    __atomic_store_n(to + length - 1, from[length - 1], __ATOMIC_RELEASE);
}

void lifeline_copy_forward(void *destination, const void *source, size_t length) {
    unsigned char *to = destination;
    const unsigned char *from = source;
    size_t done = 0;
    for (; done + 8 <= length; done += 8) {
        memcpy(to + done, from + done, 8);
        __asm__ volatile("" ::: "memory");
    }
    for (; done < length; done += 1) {
        to[done] = from[done];
        __asm__ volatile("" ::: "memory");
    }
}

// The chunk the thread writes into, and the writer it belongs to: the pointer is only used when
// the writer matches, so a chunk freed with its writer is never touched.
LIFELINE_THREAD_LOCAL uint64_t chunk_writer;
LIFELINE_THREAD_LOCAL lifeline_chunk *chunk_of_writer;

lifeline_chunk *lifeline_chunk_current(uint64_t writer) {
    return chunk_writer == writer ? chunk_of_writer : NULL;
}

void lifeline_chunk_adopt(lifeline_chunk *chunk) {
    chunk_writer = chunk->writer;
    chunk_of_writer = chunk;
}

LIFELINE_THREAD_LOCAL int64_t *open_calls_counter;

// The queue each unfinished call of the thread began on, by depth.
#define LIFELINE_QUEUE_DEPTHS 64
LIFELINE_THREAD_LOCAL uint32_t queue_at_depth[LIFELINE_QUEUE_DEPTHS];

// The id of the queue the thread runs now, from the one-entry cache of its label.
static inline uint32_t current_queue(uint64_t generation, const char **label) {
    const char *current = dispatch_queue_get_label(NULL);
    if (current == NULL || current[0] == '\0') {
        return 0;
    }
    if (cached_label_generation == generation && cached_label == current) {
        return cached_queue_id;
    }
    *label = current;
    return LIFELINE_QUEUE_MISS;
}

uint64_t lifeline_thread_event(uint64_t generation, int64_t delta, uint32_t *queue, const char **label) {
    if (declared_generation != generation) {
        return 0;
    }
    // Only this thread writes its counter; a plain load and store suffice, atomic so that the
    // stopping thread's read is well defined.
    int64_t *counter = open_calls_counter;
    int64_t depth = __atomic_load_n(counter, __ATOMIC_RELAXED);
    uint32_t id;
    if (delta < 0 && depth >= 1 && depth <= LIFELINE_QUEUE_DEPTHS) {
        id = queue_at_depth[depth - 1];
    } else {
        id = current_queue(generation, label);
        if (delta > 0 && depth >= 0 && depth < LIFELINE_QUEUE_DEPTHS) {
            queue_at_depth[depth] = id;
        }
    }
    __atomic_store_n(counter, depth + delta, __ATOMIC_RELAXED);
    *queue = id;
    return cached_tid;
}

void lifeline_thread_resolved_queue(uint64_t generation, const char *label, uint32_t queue, int64_t delta) {
    cached_label = label;
    cached_label_generation = generation;
    cached_queue_id = queue;
    if (delta > 0 && declared_generation == generation) {
        int64_t depth = __atomic_load_n(open_calls_counter, __ATOMIC_RELAXED) - 1;
        if (depth >= 0 && depth < LIFELINE_QUEUE_DEPTHS) {
            queue_at_depth[depth] = queue;
        }
    }
}

void lifeline_thread_cache_queue(uint64_t generation, const char *label, uint32_t queue) {
    cached_label = label;
    cached_label_generation = generation;
    cached_queue_id = queue;
}

LIFELINE_THREAD_LOCAL lifeline_pending_record pending_record;

lifeline_pending_record *lifeline_record_pending(void) {
    return &pending_record;
}

#define LIFELINE_UNLIKELY(condition) __builtin_expect(!!(condition), 0)

// Where lifeline_record leaves a record it could not store, for the caller to place.
static __attribute__((noinline)) uint64_t record_pending(
    lifeline_chunk *chunk, uint64_t seq, uint64_t writes, uint64_t length, const uint64_t *words) {
    pending_record.seq = seq;
    pending_record.chunk = chunk;
    pending_record.writes = writes;
    pending_record.length = length;
    memcpy(pending_record.record, words, sizeof(pending_record.record));
    return LIFELINE_RECORD_NEEDS_PLACING;
}

uint64_t lifeline_record(lifeline_log *log, uint64_t event, uint64_t objects, uint64_t number, uint64_t call_site) {
    uint64_t generation = log->generation;
    if (LIFELINE_UNLIKELY(declared_generation != generation)) {
        return LIFELINE_RECORD_NEEDS_THREAD;
    }
    if (LIFELINE_UNLIKELY(chunk_writer != log->writer)) {
        return LIFELINE_RECORD_NEEDS_CHUNK;
    }
    if (LIFELINE_UNLIKELY(cached_tid > UINT32_MAX)) {
        return LIFELINE_RECORD_UNFIT;
    }
    // The queue first, so that little is kept across libdispatch's call.
    uint64_t phase = (event >> 8) & 3;
    int64_t depth = __atomic_load_n(open_calls_counter, __ATOMIC_RELAXED);
    uint32_t queue;
    if (phase == 1 && depth >= 1 && depth <= LIFELINE_QUEUE_DEPTHS) {
        queue = queue_at_depth[depth - 1];
    } else {
        queue = current_queue(generation, &pending_record.label);
        if (LIFELINE_UNLIKELY(queue == LIFELINE_QUEUE_MISS)) {
            return LIFELINE_RECORD_NEEDS_QUEUE;
        }
    }
    lifeline_chunk *chunk = chunk_of_writer;

    lifeline_chunk_enter(chunk);
    uint64_t taken = lifeline_sequence_take(log);
    if (LIFELINE_UNLIKELY(taken & LIFELINE_SEQUENCE_STOPPED)) {
        lifeline_chunk_leave(chunk);
        return LIFELINE_RECORD_STOPPED;
    }
    uint64_t seq = taken & ~LIFELINE_SEQUENCE_FULL;
    if (phase == 0) {
        if (depth >= 0 && depth < LIFELINE_QUEUE_DEPTHS) {
            queue_at_depth[depth] = queue;
        }
        __atomic_store_n(open_calls_counter, depth + 1, __ATOMIC_RELAXED);
    } else if (phase == 1) {
        __atomic_store_n(open_calls_counter, depth - 1, __ATOMIC_RELAXED);
    }
    uint64_t origin = log->clock_origin;
    uint64_t time = origin == UINT64_MAX ? lifeline_tsc() : lifeline_monotonic_ns() - origin;

    // The record: marker, flags, length and thread; seq; time; the first object; the optional
    // fields in their order (second object, queue, demand or alive_at, call site) from byte 28;
    // the commit byte last. `tail` holds the words from byte 24 on.
    uint64_t fields = (event >> 16) & 0xFF;
    uint64_t tail[5] = {(uint32_t)objects, 0, 0, 0, 0};
    unsigned char *next = (unsigned char *)tail + 4;
    if (fields & LIFELINE_FIELD_SECOND) {
        uint32_t second = (uint32_t)(objects >> 32);
        memcpy(next, &second, 4);
        next += 4;
    }
    if (queue != 0 && queue != UINT32_MAX) {
        fields |= LIFELINE_FIELD_QUEUE;
        memcpy(next, &queue, 4);
        next += 4;
    }
    if (fields & (LIFELINE_FIELD_DEMAND | LIFELINE_FIELD_OBSERVED)) {
        memcpy(next, &number, 8);
        next += 8;
    }
    if (fields & LIFELINE_FIELD_SITE) {
        memcpy(next, &call_site, 8);
        next += 8;
    }
    uint64_t tail_words = (uint64_t)(next - (unsigned char *)tail + 8) / 8;
    uint64_t length = 24 + tail_words * 8;
    tail[tail_words - 1] |= 0x0Aull << 56;
    uint64_t head = (0x80u | (event & 0xFFu) << 2 | phase) | (fields & ~(uint64_t)LIFELINE_FIELD_SECOND) << 8
        | length << 16 | cached_tid << 32;

    unsigned char *to = chunk->cursor;
    if (LIFELINE_UNLIKELY((taken & LIFELINE_SEQUENCE_FULL) != 0 || to == NULL || length > chunk->remaining)) {
        uint64_t words[8] = {head, seq, time, tail[0], tail[1], tail[2], tail[3], tail[4]};
        return record_pending(chunk, seq, (taken & LIFELINE_SEQUENCE_FULL) == 0, length, words);
    }
    // As lifeline_chunk_store: the first word first, the last word (with the commit byte) last.
    memcpy(to, &head, 8);
    __asm__ volatile("" ::: "memory");
    __atomic_thread_fence(__ATOMIC_RELEASE);
    memcpy(to + 8, &seq, 8);
    memcpy(to + 16, &time, 8);
    for (uint64_t word = 0; word + 1 < tail_words; word++) {
        memcpy(to + 24 + word * 8, &tail[word], 8);
        __asm__ volatile("" ::: "memory");
    }
    __atomic_thread_fence(__ATOMIC_RELEASE);
    memcpy(to + length - 8, &tail[tail_words - 1], 8);
    chunk->cursor = to + length;
    chunk->remaining -= length;
    lifeline_chunk_leave(chunk);
    return seq;
}

void lifeline_thread_adopt(uint64_t generation, int64_t *open_calls) {
    (void)lifeline_thread_id();
    open_calls_counter = open_calls;
    declared_generation = generation;
}

int64_t lifeline_thread_open_calls(const int64_t *open_calls) {
    return __atomic_load_n(open_calls, __ATOMIC_RELAXED);
}

int lifeline_capture_return_addresses(uintptr_t *addresses, int capacity) {
    return backtrace((void **)addresses, capacity);
}

#define LIFELINE_SCOPE_CAPACITY 32

LIFELINE_THREAD_LOCAL uint64_t scope_generation;
LIFELINE_THREAD_LOCAL uint32_t scope_depth;
LIFELINE_THREAD_LOCAL uint8_t scope_kinds[LIFELINE_SCOPE_CAPACITY];
LIFELINE_THREAD_LOCAL uint64_t scope_values[LIFELINE_SCOPE_CAPACITY];

void lifeline_scope_push(uint64_t generation, lifeline_scope_kind kind, uint64_t value) {
    if (scope_generation != generation) {
        scope_generation = generation;
        scope_depth = 0;
    }
    if (scope_depth < LIFELINE_SCOPE_CAPACITY) {
        scope_kinds[scope_depth] = (uint8_t)kind;
        scope_values[scope_depth] = value;
    }
    scope_depth += 1;
}

void lifeline_scope_pop(uint64_t generation) {
    if (scope_generation == generation && scope_depth > 0) {
        scope_depth -= 1;
    }
}

lifeline_scope_kind lifeline_scope_pop_returning(uint64_t generation, uint64_t *value) {
    if (scope_generation != generation || scope_depth == 0) {
        return LIFELINE_SCOPE_NONE;
    }
    scope_depth -= 1;
    if (scope_depth >= LIFELINE_SCOPE_CAPACITY) {
        return LIFELINE_SCOPE_NONE;
    }
    *value = scope_values[scope_depth];
    return (lifeline_scope_kind)scope_kinds[scope_depth];
}

lifeline_scope_kind lifeline_scope_top(uint64_t generation, uint64_t *value) {
    if (scope_generation != generation || scope_depth == 0 || scope_depth > LIFELINE_SCOPE_CAPACITY) {
        return LIFELINE_SCOPE_NONE;
    }
    *value = scope_values[scope_depth - 1];
    return (lifeline_scope_kind)scope_kinds[scope_depth - 1];
}

// The identity cache: direct-mapped, 16,384 entries of one cache line each (1 MiB of zero
// pages until used). Each entry is a sequence lock: `version` is odd while a store runs.
#define LIFELINE_IDENTITY_SLOTS (1u << 14)

typedef struct {
    uint64_t version;
    uint64_t generation;
    uint64_t address;
    uint64_t metadata;
    uint64_t header_word;
    uint64_t trace_id;
    uint64_t padding[2];
} lifeline_identity_entry;

static lifeline_identity_entry identity_entries[LIFELINE_IDENTITY_SLOTS] __attribute__((aligned(64)));

static inline void identity_write(
    lifeline_identity_entry *entry, uint64_t generation, uint64_t address, uint64_t metadata,
    uint64_t header_word, uint64_t trace_id);

static inline lifeline_identity_entry *identity_slot(const void *address) {
    // Fibonacci hashing spreads both 16-byte-aligned addresses and consecutive counters.
    uint64_t key = (uint64_t)(uintptr_t)address * 0x9E3779B97F4A7C15ull;
    return &identity_entries[key >> (64 - 14)];
}

// On 64-bit platforms Swift's inline reference count keeps its two top bits set
// (UseSlowRC and SideTableMark) when the word holds a side table's address.
#define LIFELINE_SIDE_TABLE_BITS (3ull << 62)

int lifeline_identity_word_is_unique(uint64_t header_word) {
    return header_word == LIFELINE_IDENTITY_HELD
        || (header_word & LIFELINE_SIDE_TABLE_BITS) == LIFELINE_SIDE_TABLE_BITS;
}

#ifndef __APPLE__
extern bool swift_isDeallocating(const void *object);

int lifeline_object_is_deallocating(const void *object) {
    return swift_isDeallocating(object);
}
#endif

uint64_t lifeline_identity_header_word(const void *address) {
    // A Swift object starts with its metadata pointer, then its reference counts.
    return __atomic_load_n((const uint64_t *)address + 1, __ATOMIC_RELAXED);
}

// Copies an entry's fields and the version they were read at; false while a writer holds the
// entry. The caller checks the version again (identity_unchanged) after anything it reads
// meanwhile.
static inline bool identity_read(const lifeline_identity_entry *entry, lifeline_identity_entry *copy) {
    copy->version = __atomic_load_n(&entry->version, __ATOMIC_ACQUIRE);
    if (copy->version & 1) {
        return false;
    }
    copy->generation = __atomic_load_n(&entry->generation, __ATOMIC_RELAXED);
    copy->address = __atomic_load_n(&entry->address, __ATOMIC_RELAXED);
    copy->metadata = __atomic_load_n(&entry->metadata, __ATOMIC_RELAXED);
    copy->header_word = __atomic_load_n(&entry->header_word, __ATOMIC_RELAXED);
    copy->trace_id = __atomic_load_n(&entry->trace_id, __ATOMIC_RELAXED);
    return true;
}

// Whether no writer changed the entry since `copy` was read from it.
static inline bool identity_unchanged(const lifeline_identity_entry *entry, const lifeline_identity_entry *copy) {
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(&entry->version, __ATOMIC_RELAXED) == copy->version;
}

uint64_t lifeline_identity_lookup_value(uint64_t generation, uint64_t identifier, const void *metadata) {
    lifeline_identity_entry *entry = identity_slot((const void *)(uintptr_t)identifier);
    lifeline_identity_entry copy;
    if (!identity_read(entry, &copy) || !identity_unchanged(entry, &copy)) {
        return 0;
    }
    if (copy.generation != generation || copy.address != identifier || copy.header_word != 0
        || copy.metadata != (uint64_t)(uintptr_t)metadata) {
        return 0;
    }
    return copy.trace_id;
}

void lifeline_identity_store_value(uint64_t generation, uint64_t identifier, const void *metadata, uint64_t trace_id) {
    identity_write(identity_slot((const void *)(uintptr_t)identifier), generation, identifier,
                   (uint64_t)(uintptr_t)metadata, 0, trace_id);
}

uint64_t lifeline_identity_lookup(uint64_t generation, const void *address, const void *metadata) {
    lifeline_identity_entry *entry = identity_slot(address);
    lifeline_identity_entry copy;
    if (!identity_read(entry, &copy)) {
        return 0;
    }
    // A value entry (word 0) is never an object's: its address field is an identifier, and a
    // value of the same type and size would otherwise lead here to follow it.
    if (copy.generation != generation || copy.address != (uint64_t)(uintptr_t)address
        || copy.metadata != (uint64_t)(uintptr_t)metadata || copy.header_word == 0 || copy.trace_id == 0) {
        return 0;
    }
    if (copy.header_word == LIFELINE_IDENTITY_HELD) {
        // The recorder holds the object's memory while the entry exists.
        return identity_unchanged(entry, &copy) ? copy.trace_id : 0;
    }
    // Read the object's word inside the lock's window: if the entry is still unchanged after
    // it, the recorder's weak reference (and so the side table) was alive when it was read.
    uint64_t word = lifeline_identity_header_word(address);
    if (!identity_unchanged(entry, &copy) || word != copy.header_word) {
        return 0;
    }
    return copy.trace_id;
}

static inline void identity_write(
    lifeline_identity_entry *entry, uint64_t generation, uint64_t address, uint64_t metadata,
    uint64_t header_word, uint64_t trace_id) {
    uint64_t version = __atomic_load_n(&entry->version, __ATOMIC_RELAXED);
    __atomic_store_n(&entry->version, version + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&entry->generation, generation, __ATOMIC_RELAXED);
    __atomic_store_n(&entry->address, address, __ATOMIC_RELAXED);
    __atomic_store_n(&entry->metadata, metadata, __ATOMIC_RELAXED);
    __atomic_store_n(&entry->header_word, header_word, __ATOMIC_RELAXED);
    __atomic_store_n(&entry->trace_id, trace_id, __ATOMIC_RELAXED);
    __atomic_store_n(&entry->version, version + 2, __ATOMIC_RELEASE);
}

void lifeline_identity_store(
    uint64_t generation, const void *address, const void *metadata, uint64_t header_word, uint64_t trace_id) {
    if (!lifeline_identity_word_is_unique(header_word)) {
        return;
    }
    identity_write(identity_slot(address), generation, (uint64_t)(uintptr_t)address,
                   (uint64_t)(uintptr_t)metadata, header_word, trace_id);
}

void lifeline_identity_forget(const void *address) {
    lifeline_identity_entry *entry = identity_slot(address);
    if (__atomic_load_n(&entry->address, __ATOMIC_RELAXED) != (uint64_t)(uintptr_t)address) {
        return;
    }
    identity_write(entry, 0, 0, 0, 0, 0);
}
