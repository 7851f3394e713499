#include "path_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

static double now(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void on_trace(evutil_socket_t fd, short what, void *arg)
{
	struct path_trace *t = arg;
	sctp_ll_assoc *a = t->assoc(t->arg);
	sctp_ll_path st;
	char ulp[160] = "";
	(void)fd;
	(void)what;
	if (!a || sctp_ll_path_status(a, &st))
		return;
	if (t->ulp)
		t->ulp(t->arg, ulp, sizeof(ulp));
	fprintf(stderr,
		"trace %s t=%.2f cwnd=%u peer_rwnd=%u unacked=%u pending=%u srtt_ms=%u rto_ms=%u "
		"mtu=%u rcvbuf=%u t3=%u fast_rtx=%u rtx=%u%s%s\n",
		t->llp, now() - t->t0, st.cwnd, st.peer_rwnd, st.unacked, st.pending, st.srtt_ms,
		st.rto_ms, st.mtu, st.rcvbuf, st.t3_expiries, st.fast_rtx, st.rtx, *ulp ? " " : "",
		ulp);
}

void path_trace_start(struct path_trace *t, struct event_base *base, const char *llp,
		      sctp_ll_assoc *(*assoc)(void *arg), void *arg)
{
	const char *env = getenv("DDP_PERF_TRACE");
	int ms = env ? atoi(env) : 0;
	t->ev = NULL;
	t->ulp = NULL;
	if (ms <= 0)
		return;
	t->assoc = assoc;
	t->arg = arg;
	t->llp = llp;
	t->t0 = now();
	t->ev = event_new(base, -1, EV_PERSIST, on_trace, t);
	if (t->ev) {
		struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
		event_add(t->ev, &tv);
	}
}

void path_trace_stop(struct path_trace *t)
{
	if (t->ev)
		event_free(t->ev);
	t->ev = NULL;
}
