/* Giving freed heap pages back to the system after many connections went.
 *
 * A connection's memory is many small blocks (session, streams, events,
 * buffers; usrsctp's association). Freed, they stay in malloc's heap:
 * glibc returns only the free top of the heap, so a process whose 10,000
 * MPA connections closed would keep nearly all of their memory resident
 * (ddp-scale, docs/performance.md, section 8, "Memory at scale"). The pages are
 * reused by later connections, but a process whose connections went away
 * for good should not keep them.
 *
 * Each adapter counts its units (MPA: connections; SCTP: streams of its
 * associations) in a struct heap_trim of its own. When the units alive
 * fell to half of their highest count since the last trim, and by at
 * least HEAP_TRIM_MIN, malloc_trim(0) hands the free pages back. A
 * scale-down of n units thus trims about log2(n / HEAP_TRIM_MIN) times;
 * churn at a steady level never trims (the pages are in use again); at
 * most HEAP_TRIM_MIN units' worth of freed memory stays resident. Safe
 * from any thread. Header only: each library keeps its own count. */
#ifndef DDP_HEAP_TRIM_H
#define DDP_HEAP_TRIM_H

#include <stdatomic.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#define HEAP_TRIM_MIN 256

struct heap_trim {
	atomic_long live; /* units alive */
	atomic_long high; /* the most alive since the last trim */
};

static inline void heap_trim_add(struct heap_trim *t, long n)
{
	long live = atomic_fetch_add(&t->live, n) + n;
	long h = atomic_load(&t->high);
	while (live > h && !atomic_compare_exchange_weak(&t->high, &h, live))
		;
}

/* n units went: their memory was freed (call after the free). Returns 1
 * when it trimmed. */
static inline int heap_trim_sub(struct heap_trim *t, long n)
{
	long live = atomic_fetch_sub(&t->live, n) - n;
	long h = atomic_load(&t->high);
	if (h - live < HEAP_TRIM_MIN || live > h / 2)
		return 0;
	/* one thread trims; the others see the lowered high */
	if (!atomic_compare_exchange_strong(&t->high, &h, live))
		return 0;
#if defined(__GLIBC__)
	malloc_trim(0);
	return 1;
#else
	return 0;
#endif
}

#endif
