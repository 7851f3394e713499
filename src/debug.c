/* Test hooks (ddp_debug.h). */
#include "ddp_debug.h"
#include <stdlib.h>

#include "alloc.h"

#include "core.h"
#include "failmalloc.h"

int ddp_debug_set_msn(ddp_session *s, uint32_t stream, uint32_t qn, uint32_t tx_next,
                      uint32_t rx_head)
{
	if (!s || stream >= s->cfg.nstreams || qn >= s->cfg.nqueues)
		return DDP_ERR_INVAL;
	s->st[stream].uq[qn].tx_msn = tx_next;
	s->st[stream].uq[qn].head_msn = rx_head;
	return 0;
}

static struct failmalloc fm = FAILMALLOC_INIT;

void ddp_debug_fail_alloc(long n)
{
	fm.left = n;
}

static int alloc_fails(void)
{
	return failmalloc_hit(&fm);
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
