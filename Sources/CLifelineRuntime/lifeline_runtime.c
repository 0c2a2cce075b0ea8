#define _GNU_SOURCE
#include "lifeline_runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <execinfo.h>
#include <string.h>
#include <dlfcn.h>
#include <pthread.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#endif

// libdispatch's C entry points. Declared here so that no dispatch header path is needed;
// DISPATCH_CURRENT_QUEUE_LABEL is NULL.
extern const char *dispatch_queue_get_label(const void *queue);
extern const void *dispatch_get_current_queue(void);
extern void *dispatch_queue_create(const char *label, const void *attributes);
extern void dispatch_sync_f(void *queue, void *context, void (*work)(void *));
extern void dispatch_release(void *object);




// An entry's queue that no current queue is: entries hold it when empty, and always where
// libdispatch's thread data can't be read.
#define LIFELINE_NO_QUEUE ((const void *)1)
// The current queue where libdispatch's thread data can't be read.
#define LIFELINE_UNREADABLE_QUEUE ((const void *)2)


LIFELINE_RECORDER_THREAD_LOCAL lifeline_thread_state lifeline_this_thread;

uint64_t lifeline_thread_id(void) {
    if (lifeline_this_thread.tid == 0) {
        lifeline_this_thread.tid = (uint64_t)syscall(SYS_gettid);
    }
    return lifeline_this_thread.tid;
}

uint64_t lifeline_process_id(void) {
    return (uint64_t)getpid();
}

size_t lifeline_malloc_in_use(void) {
#if defined(__GLIBC__)
    // Large blocks are mapped on their own (a big table's storage): counted apart.
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
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
    return lifeline_tsc_inline();
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

lifeline_chunk *lifeline_chunk_current(uint64_t writer) {
    return lifeline_this_thread.chunk_writer == writer ? lifeline_this_thread.chunk : NULL;
}

void lifeline_chunk_adopt(lifeline_chunk *chunk) {
    lifeline_this_thread.chunk_writer = chunk->writer;
    lifeline_this_thread.chunk = chunk;
    lifeline_this_thread.ready = 0;
}

// The current queue, without asking libdispatch on every event.
//
// libdispatch keeps the queue a thread runs in its thread data (`struct dispatch_tsd`, whose
// first fields are the thread's id and the current queue), and dispatch_queue_get_label(NULL)
// reads it there through __tls_get_addr, about 50 instructions a call. That data is private to
// libdispatch, so its layout is checked before it is used: once per process, inside a
// dispatch_sync onto a queue made for the check (where the current queue must be that queue,
// as libdispatch itself says, and its label pointer where the layout puts it), and once per
// thread (its first field must be the thread's id). Where a check fails, or libdispatch's
// thread data can't be found, every event asks dispatch_queue_get_label(NULL) as before.
//
// The current queue is then one load, compared with the queue of the thread's last event; the
// queue's label pointer is compared too, so that a queue made at a dead queue's address is not
// taken for it. Either is exactly what dispatch_queue_get_label(NULL) would say, as it reads the
// same field, except for a thread on no queue: libdispatch then names its default root queue,
// and the recorder no queue, so that the thread is named by its own name.
#define LIFELINE_DISPATCH_QUEUE_OFFSET 8

static const void *const unreadable_slot_value = LIFELINE_UNREADABLE_QUEUE;
static const void *const *const unreadable_slot = &unreadable_slot_value;

static void *dispatch_module;
static pthread_once_t dispatch_module_once = PTHREAD_ONCE_INIT;

// The calling thread's libdispatch data, or NULL.
static const unsigned char *dispatch_thread_data(void) {
    // libdispatch sets its thread data up on first use.
    (void)dispatch_get_current_queue();
    void *block = NULL;
    if (dlinfo(dispatch_module, RTLD_DI_TLS_DATA, &block) != 0 || block == NULL) {
        return NULL;
    }
    if (*(const int32_t *)block != (int32_t)lifeline_thread_id()) {
        return NULL;
    }
    return block;
}

static inline const void *dispatch_current(const unsigned char *data) {
    return *(const void *const *)(data + LIFELINE_DISPATCH_QUEUE_OFFSET);
}

typedef struct {
    const void *queue;
    int agrees;
} dispatch_probe;

static void probe_dispatch_layout(void *context) {
    dispatch_probe *probe = context;
    const unsigned char *data = dispatch_thread_data();
    probe->agrees = data != NULL && dispatch_current(data) == probe->queue
        && dispatch_get_current_queue() == probe->queue
        && lifeline_dispatch_label_field(probe->queue) == dispatch_queue_get_label(probe->queue)
        && dispatch_queue_get_label(NULL) == dispatch_queue_get_label(probe->queue);
}

static void find_dispatch_module(void) {
    void *module = dlopen("libdispatch.so", RTLD_NOW | RTLD_NOLOAD);
    if (module == NULL) {
        Dl_info info;
        if (dladdr((const void *)dispatch_queue_get_label, &info) == 0 || info.dli_fname == NULL) {
            return;
        }
        module = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
        if (module == NULL) {
            return;
        }
    }
    dispatch_module = module;
    const unsigned char *data = dispatch_thread_data();
    void *queue = dispatch_queue_create("lifeline.queue-layout-check", NULL);
    if (data == NULL || queue == NULL) {
        dispatch_module = NULL;
        if (queue != NULL) dispatch_release(queue);
        return;
    }
    const void *before = dispatch_current(data);
    dispatch_probe probe = {queue, 0};
    dispatch_sync_f(queue, &probe, probe_dispatch_layout);
    int restored = dispatch_current(data) == before && before != queue;
    dispatch_release(queue);
    if (!probe.agrees || !restored) {
        dispatch_module = NULL;
    }
}

// Where libdispatch keeps the calling thread's current queue, or `unreadable_slot`.
static const void *const *find_dispatch_slot(void) {
    pthread_once(&dispatch_module_once, find_dispatch_module);
    if (dispatch_module == NULL) {
        return unreadable_slot;
    }
    const unsigned char *data = dispatch_thread_data();
    if (data == NULL) {
        return unreadable_slot;
    }
    return (const void *const *)(data + LIFELINE_DISPATCH_QUEUE_OFFSET);
}

// Makes `entry` the thread's first cache entry.
static void queue_put_first(lifeline_thread_state *thread, lifeline_queue_entry entry) {
    for (int index = LIFELINE_QUEUE_ENTRIES - 1; index > 0; index--) {
        thread->queues[index] = thread->queues[index - 1];
    }
    thread->queues[0] = entry;
}

// The id of the current queue when the first cache entry is not it: from another entry, or
// LIFELINE_QUEUE_MISS with `*label` (the entry to make is kept in `missed`).
static __attribute__((noinline)) uint64_t queue_looked_up(lifeline_thread_state *thread, const char **label) {
    const void *queue = *thread->dispatch_slot;
    lifeline_queue_entry entry;
    const char *text;
    if (queue == LIFELINE_UNREADABLE_QUEUE) {
        text = dispatch_queue_get_label(NULL);
        entry = (lifeline_queue_entry){LIFELINE_NO_QUEUE, text, 0};
    } else if (queue == NULL) {
        // A thread on no queue (one the program made itself, say) is named by its own name:
        // dispatch_queue_get_label would name libdispatch's default root queue, which it does
        // not run.
        entry = (lifeline_queue_entry){NULL, NULL, 0};
        text = NULL;
    } else {
        entry = (lifeline_queue_entry){queue, lifeline_dispatch_label_field(queue), 0};
        text = dispatch_queue_get_label(queue);
    }
    for (int index = 0; index < LIFELINE_QUEUE_ENTRIES; index++) {
        lifeline_queue_entry found = thread->queues[index];
        if (found.queue == entry.queue && found.label == entry.label) {
            if (index > 0) {
                thread->queues[index] = thread->queues[0];
                thread->queues[0] = found;
            }
            return found.id;
        }
    }
    if (text == NULL || text[0] == '\0') {
        queue_put_first(thread, entry);
        return 0;
    }
    thread->missed = entry;
    thread->missed_text = text;
    *label = text;
    return LIFELINE_QUEUE_MISS;
}

// The id of the queue the thread runs now (0 for none), or LIFELINE_QUEUE_MISS with `*label`.
static inline uint64_t current_queue(lifeline_thread_state *thread, const char **label) {
    if (LIFELINE_LIKELY(lifeline_queue_is_first(thread))) {
        return thread->queues[0].id;
    }
    return queue_looked_up(thread, label);
}

uint64_t lifeline_thread_event(uint64_t generation, int64_t delta, uint32_t *queue, const char **label) {
    lifeline_thread_state *thread = &lifeline_this_thread;
    if (thread->declared_generation != generation) {
        return 0;
    }
    // Only this thread writes its counter; a plain load and store suffice, atomic so that the
    // stopping thread's read is well defined.
    int64_t depth = __atomic_load_n(thread->open_calls, __ATOMIC_RELAXED);
    __atomic_store_n(thread->open_calls, depth + delta, __ATOMIC_RELAXED);
    *queue = (uint32_t)current_queue(thread, label);
    return thread->tid;
}

void lifeline_thread_cache_queue(uint64_t generation, const char *label, uint32_t queue) {
    lifeline_thread_state *thread = &lifeline_this_thread;
    if (thread->declared_generation != generation || label == NULL || label != thread->missed_text) {
        return;
    }
    lifeline_queue_entry entry = thread->missed;
    entry.id = queue == UINT32_MAX ? 0 : queue;
    queue_put_first(thread, entry);
    thread->missed_text = NULL;
}

LIFELINE_RECORDER_THREAD_LOCAL lifeline_pending_record lifeline_pending;

lifeline_pending_record *lifeline_record_pending(void) {
    return &lifeline_pending;
}

// Where lifeline_record leaves a record it could not store, for the caller to place.
static __attribute__((noinline)) uint64_t record_pending(
    lifeline_chunk *chunk, uint64_t seq, uint64_t writes, uint64_t length, const uint64_t *words) {
    lifeline_pending.seq = seq;
    lifeline_pending.chunk = chunk;
    lifeline_pending.writes = writes;
    lifeline_pending.length = length;
    memcpy(lifeline_pending.record, words, sizeof(lifeline_pending.record));
    return LIFELINE_RECORD_NEEDS_PLACING;
}

// Why the thread can't record into `log` without help, or 0 once it can (it is then ready).
static __attribute__((noinline)) uint64_t make_ready(lifeline_thread_state *thread, const lifeline_log *log) {
    if (thread->declared_generation != log->generation) {
        return LIFELINE_RECORD_NEEDS_THREAD;
    }
    if (thread->chunk_writer != log->writer) {
        return LIFELINE_RECORD_NEEDS_CHUNK;
    }
    if (thread->tid > UINT32_MAX) {
        return LIFELINE_RECORD_UNFIT;
    }
    if (log->clock_origin == UINT64_MAX) {
        thread->ready = log->writer;
    }
    return 0;
}


uint64_t lifeline_record(lifeline_log *log, uint64_t event, uint64_t objects, uint64_t number, uint64_t call_site) {
    lifeline_thread_state *thread = &lifeline_this_thread;
    if (LIFELINE_UNLIKELY(thread->ready != log->writer)) {
        uint64_t result = make_ready(thread, log);
        if (result != 0) {
            return result;
        }
    }
    uint64_t queue = current_queue(thread, &lifeline_pending.label);
    if (LIFELINE_UNLIKELY(queue == LIFELINE_QUEUE_MISS)) {
        return LIFELINE_RECORD_NEEDS_QUEUE;
    }
    lifeline_chunk *chunk = thread->chunk;

    uint64_t taken = lifeline_number_event(log, chunk, thread, event);
    if (LIFELINE_UNLIKELY(taken & LIFELINE_SEQUENCE_STOPPED)) {
        return LIFELINE_RECORD_STOPPED;
    }
    uint64_t seq = taken & ~LIFELINE_SEQUENCE_FULL;
    uint64_t origin = log->clock_origin;
    uint64_t time = origin == UINT64_MAX ? lifeline_tsc() : lifeline_monotonic_ns() - origin;

    // The record: marker, flags, length and thread; seq; time; the first object; the optional
    // fields in their order (second object, queue, demand or alive_at, call site) from byte 28;
    // the commit byte last. `tail` holds the words from byte 24 on.
    uint64_t flags = (event >> 8) & 0x7F;
    uint64_t tail[5] = {(uint32_t)objects, 0, 0, 0, 0};
    unsigned char *next = (unsigned char *)tail + 4;
    if (event & (LIFELINE_FIELD_SECOND << 8)) {
        uint32_t second = (uint32_t)(objects >> 32);
        memcpy(next, &second, 4);
        next += 4;
    }
    if (queue != 0) {
        uint32_t id = (uint32_t)queue;
        memcpy(next, &id, 4);
        next += 4;
        flags |= LIFELINE_FIELD_QUEUE;
    }
    if (flags & (LIFELINE_FIELD_DEMAND | LIFELINE_FIELD_OBSERVED)) {
        memcpy(next, &number, 8);
        next += 8;
    }
    if (flags & LIFELINE_FIELD_SITE) {
        memcpy(next, &call_site, 8);
        next += 8;
    }
    uint64_t tail_words = (uint64_t)(next - (unsigned char *)tail + 8) / 8;
    uint64_t length = 24 + tail_words * 8;
    tail[tail_words - 1] |= LIFELINE_COMMIT_WORD;
    uint64_t head = (event & 0xFF) | flags << 8 | length << 16 | thread->tid << 32;

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


LIFELINE_RECORDER_THREAD_LOCAL lifeline_scope_stack lifeline_this_thread_scopes;

static inline void scope_push(uint64_t generation, lifeline_scope_kind kind, uint64_t value) {
    lifeline_scope_stack *scopes = &lifeline_this_thread_scopes;
    if (LIFELINE_UNLIKELY(scopes->generation != generation)) {
        scopes->generation = generation;
        scopes->depth = 0;
    }
    uint64_t depth = scopes->depth;
    if (LIFELINE_LIKELY(depth < LIFELINE_SCOPE_CAPACITY)) {
        scopes->kinds[depth] = (uint8_t)kind;
        scopes->values[depth] = value;
    }
    scopes->depth = depth + 1;
}

static inline void scope_pop(uint64_t generation) {
    lifeline_scope_stack *scopes = &lifeline_this_thread_scopes;
    if (scopes->generation == generation && scopes->depth > 0) {
        scopes->depth -= 1;
    }
}

void lifeline_scope_push(uint64_t generation, lifeline_scope_kind kind, uint64_t value) {
    scope_push(generation, kind, value);
}

void lifeline_scope_pop(uint64_t generation) {
    scope_pop(generation);
}

lifeline_scope_kind lifeline_scope_pop_returning(uint64_t generation, uint64_t *value) {
    lifeline_scope_stack *scopes = &lifeline_this_thread_scopes;
    uint64_t depth = scopes->depth;
    if (LIFELINE_UNLIKELY(scopes->generation != generation || depth == 0)) {
        return LIFELINE_SCOPE_NONE;
    }
    depth -= 1;
    scopes->depth = depth;
    if (LIFELINE_UNLIKELY(depth >= LIFELINE_SCOPE_CAPACITY)) {
        return LIFELINE_SCOPE_NONE;
    }
    *value = scopes->values[depth];
    return (lifeline_scope_kind)scopes->kinds[depth];
}

lifeline_scope_kind lifeline_scope_top(uint64_t generation, uint64_t *value) {
    const lifeline_scope_stack *scopes = &lifeline_this_thread_scopes;
    uint64_t depth = scopes->depth;
    if (scopes->generation != generation || depth == 0 || depth > LIFELINE_SCOPE_CAPACITY) {
        return LIFELINE_SCOPE_NONE;
    }
    *value = scopes->values[depth - 1];
    return (lifeline_scope_kind)scopes->kinds[depth - 1];
}

void lifeline_thread_adopt(uint64_t generation, int64_t *open_calls) {
    lifeline_thread_state *thread = &lifeline_this_thread;
    (void)lifeline_thread_id();
    if (!thread->dispatch_slot_found) {
        thread->dispatch_slot = find_dispatch_slot();
        thread->dispatch_slot_found = 1;
    }
    for (int index = 0; index < LIFELINE_QUEUE_ENTRIES; index++) {
        thread->queues[index] = (lifeline_queue_entry){LIFELINE_NO_QUEUE, NULL, 0};
    }
    thread->missed = (lifeline_queue_entry){LIFELINE_NO_QUEUE, NULL, 0};
    thread->missed_text = NULL;
    thread->open_calls = open_calls;
    thread->declared_generation = generation;
    thread->ready = 0;
}

int64_t lifeline_thread_open_calls(const int64_t *open_calls) {
    return __atomic_load_n(open_calls, __ATOMIC_RELAXED);
}

int lifeline_capture_return_addresses(uintptr_t *addresses, int capacity) {
    return backtrace((void **)addresses, capacity);
}

lifeline_identity_entry lifeline_identity_entries[LIFELINE_IDENTITY_SLOTS] __attribute__((aligned(64)));

static inline void identity_write(
    lifeline_identity_entry *entry, uint64_t generation, uint64_t address, uint64_t metadata,
    uint64_t header_word, uint64_t trace_id);

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

void lifeline_identity_store_value(uint64_t generation, uint64_t identifier, const void *metadata, uint64_t trace_id) {
    identity_write(lifeline_identity_slot((const void *)(uintptr_t)identifier), generation, identifier,
                   (uint64_t)(uintptr_t)metadata, 0, trace_id);
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
    lifeline_identity_advance();
}

LIFELINE_RECORDER_THREAD_LOCAL lifeline_identity_memo lifeline_identity_memos[LIFELINE_IDENTITY_MEMO_SLOTS];
uint64_t lifeline_identity_epoch = 1;

void lifeline_identity_advance(void) {
    // After the entry's writes: a reader that sees the new epoch sees them too. An atomic add,
    // as a new recording's registry advances it while another one's may store.
    __atomic_fetch_add(&lifeline_identity_epoch, 1, __ATOMIC_ACQ_REL);
}

// `value_bit` is 1 for a value's memo (see lifeline_identity_memo), 0 for an object's.
static inline void identity_memoise(uint64_t key, const void *metadata, uint64_t value_bit, uint64_t epoch, uint64_t trace_id) {
    lifeline_identity_memo *memo = lifeline_identity_memo_slot(key);
    *memo = (lifeline_identity_memo){key, (uint64_t)(uintptr_t)metadata | value_bit, epoch, trace_id};
}

uint64_t lifeline_identity_lookup_missed(uint64_t generation, const void *address, const void *metadata, uint64_t epoch) {
    uint64_t id = lifeline_identity_lookup_shared(generation, address, metadata);
    // Only an entry whose memory the recorder holds: a side table's word is checked every time.
    if (id != 0 && __atomic_load_n(&lifeline_identity_slot(address)->header_word, __ATOMIC_RELAXED) == LIFELINE_IDENTITY_HELD
        && __atomic_load_n(&lifeline_identity_epoch, __ATOMIC_ACQUIRE) == epoch) {
        identity_memoise((uint64_t)(uintptr_t)address, metadata, 0, epoch, id);
    }
    return id;
}

uint64_t lifeline_identity_lookup_value_missed(uint64_t generation, uint64_t identifier, const void *metadata, uint64_t epoch) {
    uint64_t id = lifeline_identity_lookup_value_shared(generation, identifier, metadata);
    if (id != 0) {
        identity_memoise(identifier, metadata, 1, epoch, id);
    }
    return id;
}

void lifeline_identity_store(
    uint64_t generation, const void *address, const void *metadata, uint64_t header_word, uint64_t trace_id) {
    if (!lifeline_identity_word_is_unique(header_word)) {
        return;
    }
    identity_write(lifeline_identity_slot(address), generation, (uint64_t)(uintptr_t)address,
                   (uint64_t)(uintptr_t)metadata, header_word, trace_id);
}

void lifeline_identity_forget(const void *address) {
    lifeline_identity_entry *entry = lifeline_identity_slot(address);
    if (__atomic_load_n(&entry->address, __ATOMIC_RELAXED) != (uint64_t)(uintptr_t)address) {
        return;
    }
    identity_write(entry, 0, 0, 0, 0, 0);
}
