/* ddp-perf: a trace over time of an SCTP association's transport state
 * (congestion window, the peer's receive window, chunks unacknowledged and
 * queued, round trip), one line to stderr every interval, when the
 * environment sets DDP_PERF_TRACE to the interval in ms. For finding what
 * bounds a row: the rows of the DDP/SCTP and the raw usrsctp drivers print
 * the same columns. */
#ifndef DDP_PERF_PATH_TRACE_H
#define DDP_PERF_PATH_TRACE_H

#include <event2/event.h>

#include "ddp_test.h"

struct path_trace {
	struct event *ev;
	sctp_ll_assoc *(*assoc)(void *arg); /* the association now, or NULL */
	void *arg;
	/* optional: the ULP's side of the same moment (credits, queued), one
	 * short text into buf */
	void (*ulp)(void *arg, char *buf, size_t len);
	const char *llp;
	double t0;
};

/* Starts when DDP_PERF_TRACE is set; a no-op otherwise. */
void path_trace_start(struct path_trace *t, struct event_base *base, const char *llp,
		      sctp_ll_assoc *(*assoc)(void *arg), void *arg);
void path_trace_stop(struct path_trace *t);

#endif
