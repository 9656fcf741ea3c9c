#ifndef HEAP_PROBE_H
#define HEAP_PROBE_H

#include <stddef.h>

/// Bytes the allocator has handed out and not had back (glibc's mallinfo2: uordblks + hblkhd, all arenas), or
/// 0 where that is not available. For the load benchmarks' memory per call in flight.
size_t heap_probe_bytes_in_use(void);

#endif
