#define _GNU_SOURCE
#include "lifeline_runtime.h"

#include <stddef.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <execinfo.h>

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

const char *lifeline_current_queue_label(void) {
    const char *label = dispatch_queue_get_label(NULL);
    if (label == NULL || label[0] == '\0') {
        return NULL;
    }
    return label;
}

uint32_t lifeline_queue_cache_lookup(const char *label, uint64_t generation) {
    if (cached_label_generation == generation && cached_label == label) {
        return cached_queue_id;
    }
    return 0;
}

void lifeline_queue_cache_store(const char *label, uint64_t generation, uint32_t queue_id) {
    cached_label = label;
    cached_label_generation = generation;
    cached_queue_id = queue_id;
}

int lifeline_thread_declare_once(uint64_t generation) {
    if (declared_generation == generation) {
        return 1;
    }
    declared_generation = generation;
    return 0;
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

lifeline_scope_kind lifeline_scope_top(uint64_t generation, uint64_t *value) {
    if (scope_generation != generation || scope_depth == 0 || scope_depth > LIFELINE_SCOPE_CAPACITY) {
        return LIFELINE_SCOPE_NONE;
    }
    *value = scope_values[scope_depth - 1];
    return (lifeline_scope_kind)scope_kinds[scope_depth - 1];
}
