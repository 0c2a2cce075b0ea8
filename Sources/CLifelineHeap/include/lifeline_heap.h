#ifndef LIFELINE_HEAP_H
#define LIFELINE_HEAP_H

#include <stddef.h>
#include <stdint.h>

/// Copies `length` bytes at `address` of this process into `buffer` with process_vm_readv,
/// which reports unmapped memory as an error instead of faulting. Returns 1 when every byte
/// was read, 0 otherwise (always 0 on platforms other than Linux).
int lifeline_heap_read(uintptr_t address, void *buffer, size_t length);

/// malloc_usable_size of `pointer`. Only call it for a pointer whose chunk header and
/// following chunk header are known to be mapped.
size_t lifeline_heap_allocation_size(uintptr_t pointer);

/// How many times `lifeline_heap_read` has been called in this process (each call is one
/// system call on Linux), for benchmarks.
uint64_t lifeline_heap_read_count(void);

#endif
