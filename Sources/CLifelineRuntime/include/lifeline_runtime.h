#ifndef LIFELINE_RUNTIME_H
#define LIFELINE_RUNTIME_H

#include <stdint.h>

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

#endif
