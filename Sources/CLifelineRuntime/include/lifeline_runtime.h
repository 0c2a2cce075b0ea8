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

/// The label of the dispatch queue the caller runs on, or NULL when it runs on none.
const char *lifeline_current_queue_label(void);

/// A per-thread cache that maps the current queue label pointer to a trace-local queue id.
/// `generation` identifies the recording session, so a new session never sees stale ids.
/// Returns 0 on a miss.
uint32_t lifeline_queue_cache_lookup(const char *label, uint64_t generation);
void lifeline_queue_cache_store(const char *label, uint64_t generation, uint32_t queue_id);

/// Whether the calling thread was already declared in the session `generation`; marks it declared.
int lifeline_thread_declare_once(uint64_t generation);

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

/// The innermost scope of the calling thread in the recording `generation`, and its value;
/// `LIFELINE_SCOPE_NONE` when the thread is inside none (or deeper than the stack can hold).
lifeline_scope_kind lifeline_scope_top(uint64_t generation, uint64_t *value);

#endif
