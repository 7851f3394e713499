/* Test hooks (ddp_debug.h). */
#include "ddp_debug.h"
#include <stdlib.h>

#include "alloc.h"

#include "core.h"

int ddp_debug_set_msn(ddp_session *s, uint32_t stream, uint32_t qn, uint32_t tx_next,
		      uint32_t rx_head)
{
	if (!s || stream >= s->cfg.nstreams || qn >= s->cfg.nqueues)
		return DDP_ERR_INVAL;
	s->st[stream].uq[qn].tx_msn = tx_next;
	s->st[stream].uq[qn].head_msn = rx_head;
	return 0;
}

/* failmalloc: -1 = never fail; otherwise the number of allocations that
 * still succeed before every following one fails. */
static long fail_after = -1;

void ddp_debug_fail_alloc(long n)
{
	fail_after = n;
}

static int alloc_fails(void)
{
	if (fail_after < 0)
		return 0;
	if (fail_after == 0)
		return 1;
	fail_after--;
	return 0;
}

void *ddp_malloc_(size_t n)
{
	return alloc_fails() ? NULL : malloc(n);
}

void *ddp_calloc_(size_t nmemb, size_t size)
{
	return alloc_fails() ? NULL : calloc(nmemb, size);
}

void *ddp_realloc_(void *p, size_t n)
{
	return alloc_fails() ? NULL : realloc(p, n);
}
