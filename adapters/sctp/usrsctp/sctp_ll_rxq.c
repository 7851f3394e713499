/*
 * usrsctp glue: the memory of an association's receive staging area
 * (sctp_ll_rx.c reads into it): mapped when first needed, given back when
 * the association goes quiet or ends, and counted. No usrsctp call here.
 */
#include "sctp/usrsctp/sctp_usrsctp_int.h"
#include "ddp_test.h"

#include <stdatomic.h>
#include <sys/mman.h>

/* Staging areas alive in this process, and the most alive at once
 * (sctp_ll_rx_areas). */
static atomic_long areas_now, areas_peak;

static void area_count(long d)
{
	long n = atomic_fetch_add(&areas_now, d) + d;
	long p = atomic_load(&areas_peak);
	while (n > p && !atomic_compare_exchange_weak(&areas_peak, &p, n))
		;
}

/* A staging area is mapped on its own, not taken from malloc: when it goes
 * back (a quiet association) its pages go back to the system at once,
 * where a freed malloc block would stay resident in the heap. Each area
 * is one mapping, so vm.max_map_count (65,530 by default) bounds how many
 * exist at once; past it an association reads directly (sctp_ll_rx.c). */
uint8_t *sctp_ll_rxq_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	area_count(1);
	return p;
}

void sctp_ll_rx_areas(long *now, long *peak)
{
	*now = atomic_load(&areas_now);
	*peak = atomic_load(&areas_peak);
}

void sctp_ll_rxq_fini(struct sctp_ll_rxq *q)
{
	if (q->buf) {
		munmap(q->buf, q->cap);
		q->buf = NULL;
		area_count(-1);
	}
}

void sctp_ll_rxq_quiet(struct sctp_ll_rxq *q)
{
	if (!q->buf || q->n)
		return;
	if (q->used)
		q->used = 0;
	else
		sctp_ll_rxq_fini(q);
}
