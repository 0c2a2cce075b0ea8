#define _GNU_SOURCE
#include "lifeline_heap.h"
#include <stdatomic.h>

static _Atomic uint64_t read_count;

uint64_t lifeline_heap_read_count(void) {
    return atomic_load_explicit(&read_count, memory_order_relaxed);
}

#if defined(__linux__)
#include <malloc.h>
#include <sys/uio.h>
#include <unistd.h>

int lifeline_heap_read(uintptr_t address, void *buffer, size_t length) {
    if (length == 0) return 1;
    atomic_fetch_add_explicit(&read_count, 1, memory_order_relaxed);
    struct iovec local = { buffer, length };
    struct iovec remote = { (void *)address, length };
    ssize_t copied = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    return copied == (ssize_t)length;
}

size_t lifeline_heap_allocation_size(uintptr_t pointer) {
    return malloc_usable_size((void *)pointer);
}
#else
// Heap inspection reads memory only on Linux. Elsewhere every read fails, so inspection finds
// no objects rather than guessing at another platform's runtime layout.
int lifeline_heap_read(uintptr_t address, void *buffer, size_t length) {
    (void)address;
    (void)buffer;
    return length == 0;
}

size_t lifeline_heap_allocation_size(uintptr_t pointer) {
    (void)pointer;
    return 0;
}
#endif
