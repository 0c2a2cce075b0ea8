#ifndef LIFELINE_RUNTIME_H
#define LIFELINE_RUNTIME_H

#include <stdint.h>
#include <stddef.h>

/// The calling thread's kernel thread id, cached in thread-local storage after the first call.
uint64_t lifeline_thread_id(void);

/// The process id.
uint64_t lifeline_process_id(void);

/// CLOCK_MONOTONIC in nanoseconds.
uint64_t lifeline_monotonic_ns(void);

/// The bytes malloc has handed out and not taken back (glibc's `mallinfo2()`: `uordblks`, and
/// `hblkhd` for the blocks it mapped on their own); 0 where the C library does not say. For
/// measuring what the recorder keeps: the files it maps, the log among them, are not counted.
size_t lifeline_malloc_in_use(void);

/// The processor's time-stamp counter (`rdtsc`) on x86_64, where it ticks at a constant rate;
/// CLOCK_MONOTONIC in nanoseconds elsewhere. About 10 ns, against 23 for clock_gettime.
uint64_t lifeline_cycle_counter(void);

/// Whether the processor's time-stamp counter ticks at a constant rate whatever the power state
/// (CPUID 0x80000007, EDX bit 8: an invariant TSC), so that `rdtsc` can time events.
int lifeline_tsc_is_invariant(void);

/// The time-stamp counter (`rdtsc`); 0 where there is none.
uint64_t lifeline_tsc(void);

/// Copies a binary event record of `length` bytes (at least 16) into the log so that a process
/// killed at any moment leaves either nothing of it, or its first 8 bytes (its length among
/// them) with the rest, or all of it: the first 8 bytes first, then the body, then the last
/// byte (the commit byte) after everything else.
void lifeline_store_record(void *destination, const void *source, size_t length);

/// Copies `length` bytes front to back, so that a process killed during the copy leaves a prefix
/// of them and zero bytes after it (`memcpy` may store a copy's end first).
void lifeline_copy_forward(void *destination, const void *source, size_t length);


/// A thread's share of a log: the bytes it reserved with one atomic add (its chunk, a few
/// kilobytes) and writes its records into without any other shared atomic. Only the owning
/// thread writes `cursor`, `remaining` and `end` while recording runs. `busy` is 1 while the
/// thread records an event: the writer, stopping, waits for it to fall to 0 before it fills the
/// chunk's unused end. `writer` is the id of the log writer the chunk belongs to.
typedef struct lifeline_chunk {
    /// Where the next record goes in the mapped log, when the chunk lies within one mapping
    /// window; NULL when it straddles two (the writer then copies piece by piece).
    unsigned char *cursor;
    /// The bytes left in the chunk.
    uint64_t remaining;
    /// The file offset of the chunk's end.
    uint64_t end;
    uint64_t busy;
    uint64_t writer;
    uint64_t thread;
} lifeline_chunk;

/// The calling thread's chunk of the log writer `writer`, or NULL when it has none yet (or
/// last wrote to another writer).
lifeline_chunk *lifeline_chunk_current(uint64_t writer);

/// Makes `chunk` the calling thread's chunk, for its writer.
void lifeline_chunk_adopt(lifeline_chunk *chunk);

/// Marks the thread busy recording an event in `chunk`, before it takes the event's sequence
/// number with an atomic add that releases (which orders this store before it).
static inline void lifeline_chunk_enter(lifeline_chunk *chunk) {
    __atomic_store_n(&chunk->busy, 1, __ATOMIC_RELAXED);
}

/// Marks the thread done with its event: everything it wrote is before this store.
static inline void lifeline_chunk_leave(lifeline_chunk *chunk) {
    __atomic_store_n(&chunk->busy, 0, __ATOMIC_RELEASE);
}

/// Copies a binary record of `length` bytes (a multiple of 8, at least 32) from the 8-byte
/// aligned `record` into the chunk and returns 1, or returns 0, writing nothing, when it does not
/// fit or the chunk straddles two mapping windows. The record goes in whole words: its first word
/// (marker and length) first, its last word (commit byte) last, so that a process killed at any
/// moment leaves nothing of it, a torn record with its length, or all of it.
static inline int lifeline_chunk_store(lifeline_chunk *chunk, const uint64_t *record, uint64_t length) {
    unsigned char *to = chunk->cursor;
    if (to == NULL || length > chunk->remaining) {
        return 0;
    }
    uint64_t words = length / 8;
    __builtin_memcpy(to, record, 8);
    __asm__ volatile("" ::: "memory");
    __atomic_thread_fence(__ATOMIC_RELEASE);
    // Word by word: a loop the compiler turned into a call of memcpy would cost more than the
    // record's few words.
    __builtin_memcpy(to + 8, record + 1, 16);
    if (words <= 8) {
        if (words > 4) __builtin_memcpy(to + 24, record + 3, 8);
        if (words > 5) __builtin_memcpy(to + 32, record + 4, 8);
        if (words > 6) __builtin_memcpy(to + 40, record + 5, 8);
        if (words > 7) __builtin_memcpy(to + 48, record + 6, 8);
    } else {
        for (uint64_t word = 3; word + 1 < words; word++) {
            __builtin_memcpy(to + word * 8, record + word, 8);
        }
    }
    __asm__ volatile("" ::: "memory");
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __builtin_memcpy(to + length - 8, record + words - 1, 8);
    chunk->cursor = to + length;
    chunk->remaining -= length;
    return 1;
}

/// Whether the chunk's thread is recording an event, read from any thread.
static inline int lifeline_chunk_is_busy(const lifeline_chunk *chunk) {
    return __atomic_load_n(&chunk->busy, __ATOMIC_ACQUIRE) != 0;
}

/// What every recorded event reads of its log and recording: the next sequence number, with
/// `LIFELINE_SEQUENCE_STOPPED` set once numbering stopped and `LIFELINE_SEQUENCE_FULL` once the
/// log could not grow; the writer's id, which keys the threads' chunks; and, set by the recorder
/// before the first event, the recording's generation (which keys the threads' state) and its
/// clock (`UINT64_MAX` for the time-stamp counter, otherwise the origin CLOCK_MONOTONIC event
/// times count from). 64 bytes: allocated on a 64-byte boundary, it has a cache line of its own.
typedef struct lifeline_log {
    uint64_t sequence;
    uint64_t writer;
    uint64_t generation;
    uint64_t clock_origin;
    uint64_t padding[4];
} lifeline_log;

#define LIFELINE_SEQUENCE_STOPPED (1ull << 63)
#define LIFELINE_SEQUENCE_FULL (1ull << 62)

/// Takes the next sequence number: the counter's value before the add, flags included. The add
/// acquires and releases (see ``lifeline_chunk_enter``).
static inline uint64_t lifeline_sequence_take(lifeline_log *log) {
    return __atomic_fetch_add(&log->sequence, 1, __ATOMIC_ACQ_REL);
}

/// Sets `flags` in the sequence counter and returns its value before.
static inline uint64_t lifeline_sequence_set(lifeline_log *log, uint64_t flags) {
    return __atomic_fetch_or(&log->sequence, flags, __ATOMIC_ACQ_REL);
}

/// The sequence counter, flags included.
static inline uint64_t lifeline_sequence_load(const lifeline_log *log) {
    return __atomic_load_n(&log->sequence, __ATOMIC_RELAXED);
}

/// The optional fields of an event for ``lifeline_record``, as a record's flags byte says them.
#define LIFELINE_FIELD_QUEUE 0x01u
#define LIFELINE_FIELD_SITE 0x02u
#define LIFELINE_FIELD_DEMAND 0x04u
#define LIFELINE_FIELD_OBSERVED 0x20u
/// Not a flag of the record: the event names a second object.
#define LIFELINE_FIELD_SECOND 0x80u

/// What ``lifeline_record`` returns when it did not record the event: a sequence number never
/// comes near these. All but `LIFELINE_RECORD_STOPPED` and `LIFELINE_RECORD_NEEDS_PLACING` have
/// changed nothing; the caller does what they say and calls again.
#define LIFELINE_RECORD_STOPPED 0ull
/// The recording has not adopted the calling thread yet.
#define LIFELINE_RECORD_NEEDS_THREAD 0xFFFFFFFFFFFFFFFFull
/// The thread has no chunk of this log yet.
#define LIFELINE_RECORD_NEEDS_CHUNK 0xFFFFFFFFFFFFFFFEull
/// The current queue (``lifeline_record_pending``'s `label`) is not cached for the thread.
#define LIFELINE_RECORD_NEEDS_QUEUE 0xFFFFFFFFFFFFFFFDull
/// The event cannot be a record (a thread id past 32 bits).
#define LIFELINE_RECORD_UNFIT 0xFFFFFFFFFFFFFFFCull
/// Numbered and counted, but not stored: the record does not fit the thread's chunk, or the log
/// is full. ``lifeline_record_pending`` holds it; the caller places it and leaves the chunk.
#define LIFELINE_RECORD_NEEDS_PLACING 0xFFFFFFFFFFFFFFFBull

/// What ``lifeline_record`` leaves on the calling thread when it cannot finish alone.
typedef struct lifeline_pending_record {
    /// After `LIFELINE_RECORD_NEEDS_QUEUE`: the current queue's label.
    const char *label;
    /// After `LIFELINE_RECORD_NEEDS_PLACING`: the event's sequence number, the thread's chunk
    /// (still busy), whether the log still takes events, and the record with its length.
    uint64_t seq;
    lifeline_chunk *chunk;
    uint64_t writes;
    uint64_t length;
    uint64_t record[8];
} lifeline_pending_record;

/// Records one event without text into `log` on the calling thread, all of it in one call: the
/// thread's counter of unfinished calls and its queue (as ``lifeline_thread_event`` does), the
/// sequence number, the time and the binary record (docs/LogFormat.md), stored into the thread's
/// chunk as ``lifeline_chunk_store`` does. Returns the event's sequence number, or one of the
/// `LIFELINE_RECORD_*` results. The thread's counter changes only once the event is numbered,
/// while the thread is busy in its chunk, so that whoever stops numbering and waits for the
/// chunks reads every counter settled.
///
/// - `event`: the record's marker (bits 0–7: `0x80 + kind × 4 + phase`, phase 0 begin, 1 end,
///   2 instant) and the `LIFELINE_FIELD_*` the event has (bits 8–15).
/// - `objects`: the first object's id (low 32 bits) and the second's (high 32 bits).
/// - `number`: the demand (`LIFELINE_FIELD_DEMAND`) or the sequence number the object was last
///   seen alive at (`LIFELINE_FIELD_OBSERVED`).
/// - `call_site`: the call site (`LIFELINE_FIELD_SITE`).
uint64_t lifeline_record(lifeline_log *log, uint64_t event, uint64_t objects, uint64_t number, uint64_t call_site);

/// Bits of `event` for the entry points below, not of the record: before recording the event,
/// enter a delivery scope for its first object (as ``lifeline_scope_push`` with
/// `LIFELINE_SCOPE_DELIVERY` does), or leave the innermost scope (``lifeline_scope_pop``), in the
/// scopes of the log's `generation`. ``lifeline_record`` ignores them: its caller, and the
/// caller of an entry point that returned a `LIFELINE_RECORD_*` asking for a second call,
/// doesn't change the scope again.
#define LIFELINE_EVENT_ENTERS_DELIVERY (1ull << 16)
#define LIFELINE_EVENT_LEAVES_SCOPE (1ull << 17)

/// The calling thread's pending record (see ``lifeline_record``).
lifeline_pending_record *lifeline_record_pending(void);

/// After `LIFELINE_RECORD_NEEDS_QUEUE`, or a `LIFELINE_QUEUE_MISS` of ``lifeline_thread_event``:
/// caches `queue` as the id of the current queue, labelled `label`, on the calling thread
/// (`UINT32_MAX` for one to record as no queue).
void lifeline_thread_cache_queue(uint64_t generation, const char *label, uint32_t queue);

/// A queue id of ``lifeline_thread_event``: the current queue's label is not cached, and
/// `*label` is it.
#define LIFELINE_QUEUE_MISS 0xFFFFFFFEu

/// The thread-local part of recording one event on the calling thread in the recording
/// `generation`: counts the call it begins (`delta` 1) or ends (-1), or an instant (0), in the
/// thread's counter of unfinished calls, and says which dispatch queue it runs on. Returns the
/// thread's kernel id, or 0, doing nothing, when the recording has not adopted the thread yet
/// (``lifeline_thread_adopt``).
///
/// `*queue` is 0 when the thread runs no queue (or one recorded as none), the id cached for the
/// current queue (``lifeline_thread_cache_queue``), or `LIFELINE_QUEUE_MISS` with `*label` set.
/// The current queue is read where libdispatch keeps it for the thread, when its layout checked
/// out (see lifeline_runtime.c), and otherwise asked of `dispatch_queue_get_label`.
uint64_t lifeline_thread_event(uint64_t generation, int64_t delta, uint32_t *queue, const char **label);

/// Gives the calling thread its counter of unfinished calls in the recording `generation`, which
/// owns it and reads it when recording stops.
void lifeline_thread_adopt(uint64_t generation, int64_t *open_calls);

/// The value of a thread's counter, read from any thread.
int64_t lifeline_thread_open_calls(const int64_t *open_calls);

/// Writes the return addresses of the calling thread's stack, innermost first, into
/// `addresses` (at most `capacity` of them) and returns how many it wrote. Uses glibc's
/// `backtrace()`: raw addresses only, about two microseconds; nothing is symbolicated.
int lifeline_capture_return_addresses(uintptr_t *addresses, int capacity);

/// What the calling thread is inside of, as the recorder sees it: a per-thread stack of scopes
/// that says whether a subscribe is nested in another subscribe, runs while a value is being
/// delivered, or whether a cancel is nested in another cancel.
typedef enum {
    LIFELINE_SCOPE_NONE = 0,
    /// A `subscribe(_:)` call; the value is the call site id the pipeline was given.
    LIFELINE_SCOPE_SUBSCRIBE = 1,
    /// A value or completion being delivered; the value is the receiving subscriber's trace id.
    LIFELINE_SCOPE_DELIVERY = 2,
    /// A `cancel()` call; the value is unused.
    LIFELINE_SCOPE_CANCEL = 3,
    /// A subscription being handed to a subscriber (`receive(subscription:)`); the value is the
    /// call site of the subscribe it is part of, or 0.
    LIFELINE_SCOPE_HANDSHAKE = 4,
    /// A `request(_:)` call; the value is the call site of the subscribe it is part of, or 0.
    LIFELINE_SCOPE_REQUEST = 5,
} lifeline_scope_kind;

/// Enters a scope on the calling thread for the recording `generation`. A thread whose last
/// scopes belong to another recording starts afresh.
void lifeline_scope_push(uint64_t generation, lifeline_scope_kind kind, uint64_t value);

/// Leaves the innermost scope, when it belongs to the recording `generation`.
void lifeline_scope_pop(uint64_t generation);

/// Leaves the innermost scope, when it belongs to the recording `generation`, and returns it
/// with its value (`LIFELINE_SCOPE_NONE` as `lifeline_scope_top` would): one call where a
/// scope's end needs what its beginning pushed.
lifeline_scope_kind lifeline_scope_pop_returning(uint64_t generation, uint64_t *value);

/// The innermost scope of the calling thread in the recording `generation`, and its value;
/// `LIFELINE_SCOPE_NONE` when the thread is inside none (or deeper than the stack can hold).
lifeline_scope_kind lifeline_scope_top(uint64_t generation, uint64_t *value);

/// A lock-free cache from a live Swift object (or a value keyed by its combine identifier) to
/// its trace id, so that the recorder knows an
/// object it has met without a lock, an allocation or a dictionary look-up.
///
/// An entry holds the object's address, its class's metadata, a word that proves the object is
/// the one the entry was made for, and its trace id. Where the recorder holds an unowned
/// reference to every object it caches, that reference keeps the object's memory, so no other
/// object can take the address while the entry exists: the word is `LIFELINE_IDENTITY_HELD`.
/// Where it holds a weak reference instead, the object has a side table and its
/// reference-count word is the side table's address, which no other object can have while
/// that weak reference lives: the word is that reference-count word, and a look-up checks it,
/// so that an object that reuses a dead one's address has another word. Either way the
/// recorder invalidates an entry before it lets go of its reference. Entries are stored and
/// invalidated under the recorder's registry lock, and read without it (each entry is a
/// sequence lock). A miss is always safe: the caller takes the slow path.

/// The word of an entry for an object whose memory the recorder holds.
#define LIFELINE_IDENTITY_HELD 1ull

/// Whether `header_word` (`LIFELINE_IDENTITY_HELD`, or an object's reference-count word that
/// names a side table) makes an entry that identifies the object.
int lifeline_identity_word_is_unique(uint64_t header_word);

#ifndef __APPLE__
/// Whether the Swift object at `object` has begun to deinitialize: the Swift runtime's own
/// test (`swift_isDeallocating`), which reads the object's reference counts (its side table's,
/// when it has one) and never retains it. The caller holds the object's memory, as an unowned
/// reference does. Not for an Objective-C object.
int lifeline_object_is_deallocating(const void *object);
#endif


/// Caches `trace_id` for the object at `address` (see above). Callers serialise stores.
void lifeline_identity_store(
    uint64_t generation, const void *address, const void *metadata, uint64_t header_word, uint64_t trace_id);


/// Caches `trace_id` for values of type `metadata` with the combine identifier `identifier`.
/// Callers serialise stores, and store only while no object is known at that address.
void lifeline_identity_store_value(uint64_t generation, uint64_t identifier, const void *metadata, uint64_t trace_id);

/// Forgets whatever is cached for the object at `address`. Callers serialise it with stores.
void lifeline_identity_forget(const void *address);


// The record path's common case, inlined into its callers: the hook's and the proxies' calls
// then make no call to record an event, and the compiler folds what each caller's event is (its
// scope change, its phase's count of unfinished calls, its shape). Out of line, each event paid
// about 25 instructions more: the call, saving and restoring five registers, and testing the
// event's bits (callgrind, both modes). What follows is the recorder's own; only the entry points
// at the end are for its callers.

#define LIFELINE_LIKELY(condition) __builtin_expect(!!(condition), 1)
#define LIFELINE_UNLIKELY(condition) __builtin_expect(!!(condition), 0)

// The recorder's thread-locals: initial-exec, as the recorder is linked into the program, so
// that they are reached without a __tls_get_addr call on every event.
#define LIFELINE_RECORDER_THREAD_LOCAL __thread __attribute__((tls_model("initial-exec")))

// One queue of a thread's cache of the queues it ran on: libdispatch's queue object and the
// label pointer it had (the label alone where libdispatch's thread data can't be read), and the
// id to record, 0 for none.
typedef struct {
    const void *queue;
    const char *label;
    uint64_t id;
} lifeline_queue_entry;

#define LIFELINE_QUEUE_ENTRIES 4

// What every event reads of the calling thread, in one block so that its address is computed
// once per event.
typedef struct {
    // The writer (a log's `writer`, never 0) the thread records into without further checks:
    // the thread was adopted by that log's recording, holds a chunk of it, and its id fits a
    // record. Reset whenever one of those changes. Never set for a log timed by
    // CLOCK_MONOTONIC, so that the common path needs no check of the clock (2 instructions an
    // event): its events all take lifeline_record.
    uint64_t ready;
    lifeline_chunk *chunk;
    int64_t *open_calls;
    // Where libdispatch keeps the thread's current queue (see find_dispatch_slot), or
    // `unreadable_slot`.
    const void *const *dispatch_slot;
    // The queues met last, the current one first.
    lifeline_queue_entry queues[LIFELINE_QUEUE_ENTRIES];
    uint64_t tid;
    uint64_t declared_generation;
    uint64_t chunk_writer;
    // The queue the last miss was for and its label's text, until lifeline_thread_cache_queue
    // gives its id.
    lifeline_queue_entry missed;
    const char *missed_text;
    // Whether dispatch_slot was looked for.
    int dispatch_slot_found;
} lifeline_thread_state;

extern LIFELINE_RECORDER_THREAD_LOCAL lifeline_thread_state lifeline_this_thread;

/// Where ``lifeline_record_pending`` points.
extern LIFELINE_RECORDER_THREAD_LOCAL lifeline_pending_record lifeline_pending;

#define LIFELINE_SCOPE_CAPACITY 32
// The calling thread's scopes in the recording `generation`, innermost last: `depth` counts
// them all, the arrays hold the first LIFELINE_SCOPE_CAPACITY.
typedef struct {
    uint64_t generation;
    uint64_t depth;
    uint64_t values[LIFELINE_SCOPE_CAPACITY];
    uint8_t kinds[LIFELINE_SCOPE_CAPACITY];
} lifeline_scope_stack;

extern LIFELINE_RECORDER_THREAD_LOCAL lifeline_scope_stack lifeline_this_thread_scopes;

// Where libdispatch keeps a queue's label (see find_dispatch_slot in lifeline_runtime.c).
#define LIFELINE_DISPATCH_LABEL_OFFSET 0x48
static inline const char *lifeline_dispatch_label_field(const void *queue) {
    return *(const char *const *)((const unsigned char *)queue + LIFELINE_DISPATCH_LABEL_OFFSET);
}

// Whether the thread's current queue is its first cache entry's.
static inline int lifeline_queue_is_first(const lifeline_thread_state *thread) {
    const void *queue = *thread->dispatch_slot;
    return queue == thread->queues[0].queue
        && (queue == NULL || lifeline_dispatch_label_field(queue) == thread->queues[0].label);
}

// ``lifeline_tsc``, inlined.
static inline uint64_t lifeline_tsc_inline(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}

#define LIFELINE_COMMIT_WORD (0x0Aull << 56)

// Counts the thread's unfinished calls for `event`: +1 at a begin (phase 0), -1 at an end (1).
static inline __attribute__((always_inline)) void lifeline_count_call(lifeline_thread_state *thread, uint64_t event) {
    uint64_t phase = event & 3;
    if (phase < 2) {
        int64_t *counter = thread->open_calls;
        __atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + 1 - 2 * (int64_t)phase, __ATOMIC_RELAXED);
    }
}

// Takes the next sequence number for an event inside `chunk`, and counts the thread's
// unfinished calls: +1 at a begin (phase 0), -1 at an end (1). Once numbering has stopped, the
// word taken has LIFELINE_SEQUENCE_STOPPED set, the chunk is left and nothing is counted.
static inline __attribute__((always_inline)) uint64_t lifeline_number_event(
    lifeline_log *log, lifeline_chunk *chunk, lifeline_thread_state *thread, uint64_t event) {
    lifeline_chunk_enter(chunk);
    uint64_t taken = lifeline_sequence_take(log);
    if (LIFELINE_UNLIKELY(taken & LIFELINE_SEQUENCE_STOPPED)) {
        lifeline_chunk_leave(chunk);
        return taken;
    }
    lifeline_count_call(thread, event);
    return taken;
}

// The shapes of record the entry points below build: known when they are compiled, so that
// each builds its record without looking at its fields.
typedef enum {
    // The first object alone.
    LIFELINE_RECORD_SHAPE_OBJECT,
    // The first object and a number (demand or alive_at).
    LIFELINE_RECORD_SHAPE_NUMBER,
    // Two objects.
    LIFELINE_RECORD_SHAPE_OBJECTS,
} lifeline_record_shape;

// Stores the record of `event` on the common path of lifeline_record_shaped, which checked the
// thread and built its words from byte 24 on: `w3` to `w5`, `tail_words` of them, the last with
// the commit byte, and the record's `flags`. Anything unusual goes to lifeline_record with
// `objects` and `number`, before anything changed.
static inline __attribute__((always_inline)) uint64_t lifeline_record_words(
    lifeline_log *log, lifeline_thread_state *thread, uint64_t event, uint64_t objects, uint64_t number,
    uint64_t flags, uint64_t w3, uint64_t w4, uint64_t w5, uint64_t tail_words) {
    uint64_t length = 24 + tail_words * 8;
    lifeline_chunk *chunk = thread->chunk;
    unsigned char *to = chunk->cursor;
    if (LIFELINE_UNLIKELY(to == NULL || length > chunk->remaining)) {
        return lifeline_record(log, event, objects, number, 0);
    }
    uint64_t head = (event & 0xFF) | flags << 8 | length << 16 | thread->tid << 32;

    // As lifeline_number_event, with one test for both of the counter's flags: the word taken
    // is below LIFELINE_SEQUENCE_FULL unless numbering stopped or the log is full, so the common
    // path neither tests them apart nor masks the number (with the queue's case apart, 12
    // instructions an event, callgrind, both modes).
    lifeline_chunk_enter(chunk);
    uint64_t taken = lifeline_sequence_take(log);
    if (LIFELINE_UNLIKELY(taken >= LIFELINE_SEQUENCE_FULL)) {
        if (taken & LIFELINE_SEQUENCE_STOPPED) {
            lifeline_chunk_leave(chunk);
            return LIFELINE_RECORD_STOPPED;
        }
        lifeline_count_call(thread, event);
        // Numbered and counted, not written: the caller counts it as dropped. Only the head is
        // kept; going through record_pending costs the common path 4 instructions per event.
        lifeline_pending.seq = taken & ~LIFELINE_SEQUENCE_FULL;
        lifeline_pending.chunk = chunk;
        lifeline_pending.writes = 0;
        lifeline_pending.length = length;
        lifeline_pending.record[0] = head;
        return LIFELINE_RECORD_NEEDS_PLACING;
    }
    lifeline_count_call(thread, event);
    uint64_t seq = taken;
    uint64_t time = lifeline_tsc_inline();
    // As lifeline_chunk_store: the first word first, the last word (with the commit byte) last.
    __builtin_memcpy(to, &head, 8);
    __asm__ volatile("" ::: "memory");
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __builtin_memcpy(to + 8, &seq, 8);
    __builtin_memcpy(to + 16, &time, 8);
    if (tail_words == 1) {
        __asm__ volatile("" ::: "memory");
        __atomic_thread_fence(__ATOMIC_RELEASE);
        __builtin_memcpy(to + 24, &w3, 8);
    } else if (tail_words == 2) {
        __builtin_memcpy(to + 24, &w3, 8);
        __asm__ volatile("" ::: "memory");
        __atomic_thread_fence(__ATOMIC_RELEASE);
        __builtin_memcpy(to + 32, &w4, 8);
    } else {
        __builtin_memcpy(to + 24, &w3, 8);
        __builtin_memcpy(to + 32, &w4, 8);
        __asm__ volatile("" ::: "memory");
        __atomic_thread_fence(__ATOMIC_RELEASE);
        __builtin_memcpy(to + 40, &w5, 8);
    }
    chunk->cursor = to + length;
    chunk->remaining -= length;
    lifeline_chunk_leave(chunk);
    return seq;
}

// One event of `shape` (see lifeline_record) on the common path: the thread is ready, its queue
// is the one of its last event, the clock is the time-stamp counter, and the record fits the
// thread's chunk. Anything else goes to lifeline_record before anything changed but the scope
// (`LIFELINE_EVENT_ENTERS_DELIVERY`, `LIFELINE_EVENT_LEAVES_SCOPE`), which lifeline_record
// leaves alone. No call on this path, so that its callers save few registers for it.
static inline __attribute__((always_inline)) uint64_t lifeline_record_shaped(
    lifeline_log *log, uint64_t event, uint64_t objects, uint64_t number, lifeline_record_shape shape) {
    // As scope_push and scope_pop, written out with one generation check: calling the two
    // (inlined) costs 7 more instructions per event (callgrind, operator mode).
    if (event & (LIFELINE_EVENT_ENTERS_DELIVERY | LIFELINE_EVENT_LEAVES_SCOPE)) {
        lifeline_scope_stack *scopes = &lifeline_this_thread_scopes;
        uint64_t generation = log->generation;
        int current = scopes->generation == generation;
        uint64_t depth = current ? scopes->depth : 0;
        if (event & LIFELINE_EVENT_ENTERS_DELIVERY) {
            if (depth < LIFELINE_SCOPE_CAPACITY) {
                scopes->kinds[depth] = LIFELINE_SCOPE_DELIVERY;
                scopes->values[depth] = (uint32_t)objects;
            }
            scopes->generation = generation;
            scopes->depth = depth + 1;
        } else if (depth > 0) {
            scopes->depth = depth - 1;
        }
    }
    lifeline_thread_state *thread = &lifeline_this_thread;
    if (LIFELINE_UNLIKELY(thread->ready != log->writer || !lifeline_queue_is_first(thread))) {
        return lifeline_record(log, event, objects, number, 0);
    }
    uint64_t queue = thread->queues[0].id;
    // The words from byte 24 on: the first object, the queue and the other fields, as
    // lifeline_record lays them out, and the commit byte last. Each case stores its record with
    // its own copy of lifeline_record_words, whose length and stores are then constants: one
    // copy for all cases (the words, the length and the flags chosen at run time, kept in
    // registers or spilled across the atomic add) cost 15 instructions an event more in
    // automatic mode, where the hook's arguments already hold most registers, and 11 in operator
    // mode (callgrind).
    uint64_t first = (uint32_t)objects;
    uint64_t flags = (event >> 8) & 0x7F;
    if (LIFELINE_LIKELY(queue == 0)) {
        switch (shape) {
        case LIFELINE_RECORD_SHAPE_OBJECT:
            return lifeline_record_words(log, thread, event, objects, number, flags, first | LIFELINE_COMMIT_WORD, 0, 0, 1);
        case LIFELINE_RECORD_SHAPE_NUMBER:
            return lifeline_record_words(
                log, thread, event, objects, number, flags, first | number << 32, number >> 32 | LIFELINE_COMMIT_WORD, 0, 2);
        case LIFELINE_RECORD_SHAPE_OBJECTS:
            return lifeline_record_words(log, thread, event, objects, number, flags, objects, LIFELINE_COMMIT_WORD, 0, 2);
        }
    }
    flags |= LIFELINE_FIELD_QUEUE;
    switch (shape) {
    case LIFELINE_RECORD_SHAPE_OBJECT:
        return lifeline_record_words(log, thread, event, objects, number, flags, first | queue << 32, LIFELINE_COMMIT_WORD, 0, 2);
    case LIFELINE_RECORD_SHAPE_NUMBER:
        return lifeline_record_words(log, thread, event, objects, number, flags, first | queue << 32, number, LIFELINE_COMMIT_WORD, 3);
    case LIFELINE_RECORD_SHAPE_OBJECTS:
        return lifeline_record_words(log, thread, event, objects, number, flags, objects, queue | LIFELINE_COMMIT_WORD, 0, 2);
    }
    return lifeline_record(log, event, objects, number, 0);
}

/// ``lifeline_record`` for an event whose only field is its object (no flag in `event`): built
/// without looking at its fields.
static inline __attribute__((always_inline)) uint64_t lifeline_record_object(lifeline_log *log, uint64_t event, uint32_t object) {
    return lifeline_record_shaped(log, event, object, 0, LIFELINE_RECORD_SHAPE_OBJECT);
}

/// ``lifeline_record`` for an event with its object and a number, and no other field (flag
/// `LIFELINE_FIELD_DEMAND` or `LIFELINE_FIELD_OBSERVED` in `event`).
static inline __attribute__((always_inline)) uint64_t lifeline_record_number(lifeline_log *log, uint64_t event, uint32_t object, uint64_t number) {
    return lifeline_record_shaped(log, event, object, number, LIFELINE_RECORD_SHAPE_NUMBER);
}

/// ``lifeline_record`` for an event with two objects and no other field (flag
/// `LIFELINE_FIELD_SECOND` in `event`).
static inline __attribute__((always_inline)) uint64_t lifeline_record_objects(lifeline_log *log, uint64_t event, uint64_t objects) {
    return lifeline_record_shaped(log, event, objects, 0, LIFELINE_RECORD_SHAPE_OBJECTS);
}

/// Leaves the calling thread's innermost scope in the log's recording and returns what it held
/// when it was a delivery: the subscriber's id, which the caller records the end of the delivery
/// for. 0 when it was another scope, or the thread is inside none (call sites off, a delivery
/// begun before the recording started, scopes nested too deep).
static inline __attribute__((always_inline)) uint64_t lifeline_scope_leave_delivery(const lifeline_log *log) {
    lifeline_scope_stack *scopes = &lifeline_this_thread_scopes;
    uint64_t depth = scopes->depth;
    if (LIFELINE_UNLIKELY(scopes->generation != log->generation || depth == 0)) {
        return 0;
    }
    depth -= 1;
    scopes->depth = depth;
    return depth < LIFELINE_SCOPE_CAPACITY && scopes->kinds[depth] == LIFELINE_SCOPE_DELIVERY ? scopes->values[depth] : 0;
}

// The identity cache's look-ups, inlined into the hook's calls like the record path: out of
// line, each cost about 10 instructions more (callgrind, automatic mode).

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

extern lifeline_identity_entry lifeline_identity_entries[LIFELINE_IDENTITY_SLOTS];

static inline lifeline_identity_entry *lifeline_identity_slot(const void *address) {
    // Fibonacci hashing spreads both 16-byte-aligned addresses and consecutive counters.
    uint64_t key = (uint64_t)(uintptr_t)address * 0x9E3779B97F4A7C15ull;
    return &lifeline_identity_entries[key >> (64 - 14)];
}

/// The reference-count word of the object at `address`, which the caller keeps alive.
static inline uint64_t lifeline_identity_header_word(const void *address) {
    // A Swift object starts with its metadata pointer, then its reference counts.
    return __atomic_load_n((const uint64_t *)address + 1, __ATOMIC_RELAXED);
}

// Copies an entry's fields and the version they were read at; false while a writer holds the
// entry. The caller checks the version again (lifeline_identity_unchanged) after anything it reads
// meanwhile.
static inline _Bool lifeline_identity_read(const lifeline_identity_entry *entry, lifeline_identity_entry *copy) {
    copy->version = __atomic_load_n(&entry->version, __ATOMIC_ACQUIRE);
    if (copy->version & 1) {
        return 0;
    }
    copy->generation = __atomic_load_n(&entry->generation, __ATOMIC_RELAXED);
    copy->address = __atomic_load_n(&entry->address, __ATOMIC_RELAXED);
    copy->metadata = __atomic_load_n(&entry->metadata, __ATOMIC_RELAXED);
    copy->header_word = __atomic_load_n(&entry->header_word, __ATOMIC_RELAXED);
    copy->trace_id = __atomic_load_n(&entry->trace_id, __ATOMIC_RELAXED);
    return 1;
}

// Whether no writer changed the entry since `copy` was read from it.
static inline _Bool lifeline_identity_unchanged(const lifeline_identity_entry *entry, const lifeline_identity_entry *copy) {
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(&entry->version, __ATOMIC_RELAXED) == copy->version;
}

/// The trace id cached for the value of type `metadata` (a struct subscriber or subscription)
/// whose combine identifier is `identifier`, in the recording `generation`, or 0, read from the
/// shared cache. Value
/// entries share the table with objects: one keyed by an identifier that is an object's
/// address is evicted when the recorder stores or forgets an object there.
static inline __attribute__((always_inline)) uint64_t lifeline_identity_lookup_value_shared(uint64_t generation, uint64_t identifier, const void *metadata) {
    lifeline_identity_entry *entry = lifeline_identity_slot((const void *)(uintptr_t)identifier);
    lifeline_identity_entry copy;
    if (!lifeline_identity_read(entry, &copy) || !lifeline_identity_unchanged(entry, &copy)) {
        return 0;
    }
    if (copy.generation != generation || copy.address != identifier || copy.header_word != 0
        || copy.metadata != (uint64_t)(uintptr_t)metadata) {
        return 0;
    }
    return copy.trace_id;
}

/// The trace id cached for the object at `address` of class `metadata` in the recording
/// `generation`, or 0, read from the shared cache.
static inline __attribute__((always_inline)) uint64_t lifeline_identity_lookup_shared(uint64_t generation, const void *address, const void *metadata) {
    lifeline_identity_entry *entry = lifeline_identity_slot(address);
    lifeline_identity_entry copy;
    if (!lifeline_identity_read(entry, &copy)) {
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
        return lifeline_identity_unchanged(entry, &copy) ? copy.trace_id : 0;
    }
    // Read the object's word inside the lock's window: if the entry is still unchanged after
    // it, the recorder's weak reference (and so the side table) was alive when it was read.
    uint64_t word = lifeline_identity_header_word(address);
    if (!lifeline_identity_unchanged(entry, &copy) || word != copy.header_word) {
        return 0;
    }
    return copy.trace_id;
}

// The calling thread's memo of the identity cache: the last look-ups that hit, each with the
// cache's epoch at the time. The epoch advances whenever any entry of the shared cache is
// stored or forgotten, and whenever a recording starts (`lifeline_identity_advance`), so a memo
// whose epoch is the current one says what the shared cache says now, and can be trusted
// without its sequence lock: four words of the thread's own against the entry's seven and two
// reads of its version. An object whose memory the recorder holds (`LIFELINE_IDENTITY_HELD`) or
// a value is memoised; an entry whose word is a side table's is read from the shared cache every
// time, as its look-up reads the object's own word.
#define LIFELINE_IDENTITY_MEMO_SLOTS 64

typedef struct {
    uint64_t key;
    // The type's metadata; with its lowest bit set (metadata is aligned) for a value, whose key
    // is its combine identifier, so that an object's look-up never takes a value's memo of the
    // same type whose identifier is the object's address (and the other way round).
    uint64_t metadata;
    uint64_t epoch;
    uint64_t trace_id;
} lifeline_identity_memo;

extern LIFELINE_RECORDER_THREAD_LOCAL lifeline_identity_memo lifeline_identity_memos[LIFELINE_IDENTITY_MEMO_SLOTS];

/// The identity cache's epoch (see above).
extern uint64_t lifeline_identity_epoch;

/// Advances the identity cache's epoch: every thread's memo is then read again from the shared
/// cache. Every store and forget advances it after writing its entry.
void lifeline_identity_advance(void);

/// The shared cache's look-ups behind a memo miss, out of line: they store what they find in
/// the calling thread's memo, with `epoch`, read before them.
uint64_t lifeline_identity_lookup_missed(uint64_t generation, const void *address, const void *metadata, uint64_t epoch);
uint64_t lifeline_identity_lookup_value_missed(uint64_t generation, uint64_t identifier, const void *metadata, uint64_t epoch);

static inline lifeline_identity_memo *lifeline_identity_memo_slot(uint64_t key) {
    return &lifeline_identity_memos[(key * 0x9E3779B97F4A7C15ull) >> (64 - 6)];
}

/// ``lifeline_identity_lookup_shared``, through the calling thread's memo.
static inline __attribute__((always_inline)) uint64_t lifeline_identity_lookup(uint64_t generation, const void *address, const void *metadata) {
    uint64_t epoch = __atomic_load_n(&lifeline_identity_epoch, __ATOMIC_ACQUIRE);
    lifeline_identity_memo *memo = lifeline_identity_memo_slot((uint64_t)(uintptr_t)address);
    if (LIFELINE_LIKELY(memo->key == (uint64_t)(uintptr_t)address && memo->metadata == (uint64_t)(uintptr_t)metadata
                        && memo->epoch == epoch)) {
        return memo->trace_id;
    }
    return lifeline_identity_lookup_missed(generation, address, metadata, epoch);
}

/// ``lifeline_identity_lookup_value_shared``, through the calling thread's memo.
static inline __attribute__((always_inline)) uint64_t lifeline_identity_lookup_value(uint64_t generation, uint64_t identifier, const void *metadata) {
    uint64_t epoch = __atomic_load_n(&lifeline_identity_epoch, __ATOMIC_ACQUIRE);
    lifeline_identity_memo *memo = lifeline_identity_memo_slot(identifier);
    if (LIFELINE_LIKELY(memo->key == identifier && memo->metadata == ((uint64_t)(uintptr_t)metadata | 1) && memo->epoch == epoch)) {
        return memo->trace_id;
    }
    return lifeline_identity_lookup_value_missed(generation, identifier, metadata, epoch);
}

// MARK: The record path, prebuilt (lifeline_record_prebuilt.c)

// Out-of-line copies of the record path's entry points above, for a debug build of the
// recorder: SwiftPM compiles every target of a debug build at -O0, C targets and the header's
// inline functions included, and without optimization those cost several hundred instructions
// an event. On x86_64 Linux they are assembly compiled once with -O2
// (lifeline_record_prebuilt_x86_64_linux.S, written by scripts/record-assembly.sh); a release
// build calls the inline functions, which fold into their callers.
uint64_t lifeline_record_object_prebuilt(lifeline_log *log, uint64_t event, uint32_t object);
uint64_t lifeline_record_number_prebuilt(lifeline_log *log, uint64_t event, uint32_t object, uint64_t number);
uint64_t lifeline_record_objects_prebuilt(lifeline_log *log, uint64_t event, uint64_t objects);
uint64_t lifeline_scope_leave_delivery_prebuilt(const lifeline_log *log);
uint64_t lifeline_identity_lookup_prebuilt(uint64_t generation, const void *address, const void *metadata);
uint64_t lifeline_identity_lookup_value_prebuilt(uint64_t generation, uint64_t identifier, const void *metadata);

// MARK: SIGQUIT (lifeline_quit_signal.c)

/// Makes SIGQUIT write one byte ('Q') to `fd` (the write end of a non-blocking pipe) instead of
/// ending the process, or of being ignored (as a shell leaves it for a program it starts in the
/// background): a program that handles SIGQUIT itself keeps its handler. The handler only calls
/// write(2), which is async-signal-safe, and keeps errno; system calls it interrupts restart.
/// Returns 1 when it installed the handler, 0 when it left the disposition as it was.
int lifeline_quit_signal_install(int fd);

/// Gives SIGQUIT back the disposition it had (the default, or ignored), when the handler
/// installed by `lifeline_quit_signal_install` is still the one in place (the program may have
/// installed its own since, which stays).
void lifeline_quit_signal_remove(void);

/// Lets the calling thread receive SIGQUIT, which a program started with it blocked (its
/// parent's mask is inherited) would otherwise never be handed: the thread that waits for the
/// handler's byte takes it.
void lifeline_quit_signal_unblock_here(void);

#endif
