/* Allocations of the SCTP adapter, failable by tests
 * (sctp_ddp_debug_fail_alloc), and the per-stream state table that the
 * adapter allocates stream by stream. */
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "common/heap_trim.h"
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

/* streams of the associations of this process, for giving freed heap
 * back when many went (heap_trim.h) */
static struct heap_trim streams_mem;

/* Per-stream state, lazily: a peer may ask for 65,535 streams, and
 * 560 octets for each at once would be 36 MB per association, all of it
 * touched. So an association gets a table of pointers (8 octets a stream),
 * a list of the used sids (2) and a bitmap (1/8): the two arrays of a
 * large association are big enough for malloc to map them fresh, so only
 * the pages of streams actually used become resident. A stream's 560
 * octets come with its first session and go with the association. */
int sctp_ss_table_new(struct ddp_sctp_assoc *a)
{
	a->st = sctp_xcalloc(a->nstreams, sizeof(*a->st));
	a->live = sctp_xmalloc((size_t)a->nstreams * sizeof(*a->live));
	a->term_q = sctp_xcalloc((a->nstreams + 7) / 8, 1);
	a->idle_tx = sctp_xcalloc((a->nstreams + 7) / 8, 1);
	a->nlive = 0;
	if (!a->st || !a->live || !a->term_q || !a->idle_tx) {
		sctp_ss_table_free(a);
		return DDP_ERR_NOMEM;
	}
	heap_trim_add(&streams_mem, a->nstreams);
	return 0;
}

/* An association with at least this many streams gives its memory back to
 * the system when it goes (below). */
#define SCTP_TRIM_STREAMS 4096

void sctp_ss_table_free(struct ddp_sctp_assoc *a)
{
	int big = a->st && a->nstreams >= SCTP_TRIM_STREAMS;
	int counted = a->st && a->live && a->term_q && a->idle_tx; /* table_new passed */
	if (a->st)
		for (uint32_t i = 0; i < a->nlive; i++)
			free(a->st[a->live[i]]);
	free(a->st);
	free(a->live);
	free(a->term_q);
	free(a->idle_tx);
	a->idle_tx = NULL;
	a->st = NULL;
	a->live = NULL;
	a->term_q = NULL;
	a->nlive = 0;
#if defined(__GLIBC__)
	/* The core's per-stream state of a large association is tens of
	 * thousands of small blocks (and usrsctp's is more): freed, they stay
	 * in malloc's heap, where nothing else may reuse them, tens of MB
	 * resident after the association closed (docs/performance.md,
	 * section 18). This is the last free of the association
	 * (assoc_free): hand the free pages back. It walks the heap once, for
	 * large associations only. Many small associations add up the same
	 * way (section 8): when half of the streams went, heap_trim_sub
	 * trims. */
	if (counted && !heap_trim_sub(&streams_mem, a->nstreams) && big)
		malloc_trim(0);
#else
	(void)big;
	if (counted)
		heap_trim_sub(&streams_mem, a->nstreams);
#endif
}

struct sctp_sstream *sctp_ss_get(struct ddp_sctp_assoc *a, uint32_t sid)
{
	struct sctp_sstream *ss;
	if (!a->st || sid >= a->nstreams)
		return NULL;
	if (a->st[sid])
		return a->st[sid];
	ss = sctp_xcalloc(1, sizeof(*ss));
	if (!ss)
		return NULL;
	sctp_stream_init(&ss->sm);
	a->st[sid] = ss;
	a->live[a->nlive++] = (uint16_t)sid;
	return ss;
}

struct sctp_stream *sctp_sm_or_idle(struct ddp_sctp_assoc *a, uint32_t sid, struct sctp_stream *tmp)
{
	struct sctp_sstream *ss = sctp_ss(a, sid);
	if (ss)
		return &ss->sm;
	sctp_stream_init(tmp);
	return tmp;
}
