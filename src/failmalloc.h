/* failmalloc for tests: a counter of allocations that still succeed
 * before every following one fails (-1: never fail). Each library keeps
 * its own (the core's ddp_debug_fail_alloc, the SCTP adapter's
 * sctp_ddp_debug_fail_alloc): installed libraries share no internals. */
#ifndef DDP_FAILMALLOC_H
#define DDP_FAILMALLOC_H

struct failmalloc {
	long left;
};
#define FAILMALLOC_INIT                                                                            \
	{                                                                                          \
		-1                                                                                 \
	}

/* 1: this allocation is to fail. */
static inline int failmalloc_hit(struct failmalloc *f)
{
	if (f->left < 0)
		return 0;
	if (f->left == 0)
		return 1;
	f->left--;
	return 0;
}

#endif
