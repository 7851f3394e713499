/* Allocations of the SCTP adapter, failable by tests
 * (sctp_ddp_debug_fail_alloc). */
#include <stdlib.h>

#include "sctp/sctp_ddp_int.h"
#include "failmalloc.h"

/* Every allocation of the SCTP adapter goes through sctp_xmalloc/xcalloc so a test can
 * fail them (sctp_ddp_debug_fail_alloc, sctp_ddp_int.h): the core's
 * failmalloc hook (ddp_debug_fail_alloc) does not reach the adapter. */
static struct failmalloc fm = FAILMALLOC_INIT;

void sctp_ddp_debug_fail_alloc(long n)
{
	fm.left = n;
}

static int alloc_fails(void)
{
	return failmalloc_hit(&fm);
}

void *sctp_xmalloc(size_t n)
{
	return alloc_fails() ? NULL : malloc(n);
}

void *sctp_xcalloc(size_t nmemb, size_t size)
{
	return alloc_fails() ? NULL : calloc(nmemb, size);
}

