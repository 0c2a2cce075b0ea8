#define _GNU_SOURCE
#include "lifeline_heap.h"

#if defined(__linux__)
#include <malloc.h>
#include <sys/uio.h>
#include <unistd.h>

int lifeline_heap_read(uintptr_t address, void *buffer, size_t length) {
    if (length == 0) return 1;
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
