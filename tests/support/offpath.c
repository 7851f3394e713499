/* The off-path SCTP tests' namespace, loop and header capture (offpath.h). */
#include "offpath.h"

#if HAVE_LIBEVENT && HAVE_USRSCTP
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "icmpforge.h"
#include "net_helpers.h"
#include "ddp_test.h"

unsigned offpath_grab_hdr(void *user, uint8_t *pkt, size_t len)
{
	struct offpath_hdr *h = user;
	if (len >= sizeof(h->b)) {
		memcpy(h->b, pkt, sizeof(h->b));
		h->have = 1;
	}
	return SCTP_LL_PASS;
}

int offpath_setup(struct event_base **base)
{
	*base = NULL;
	if (!icmp_own_netns())
		return 0;
	alarm(120);
	*base = event_base_new();
	return *base ? 0 : -1;
}

void offpath_teardown(struct event_base **base)
{
	if (*base)
		event_base_free(*base);
	*base = NULL;
	alarm(0);
}

int offpath_run_until(struct event_base *base, const int *flag, double secs)
{
	double end = net_now_s() + secs;
	while (!*flag && net_now_s() < end) {
		struct timeval tv = {0, 5000};
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	return *flag;
}

int offpath_open_stream0(ddp_sctp_assoc *a, ddp_session *s, uint32_t stream,
                         enum ddp_sctp_event ev, uint8_t *bufs, int n, size_t len)
{
	if (stream != 0 || (ev != DDP_SCTP_INITIATE && ev != DDP_SCTP_ACCEPTED))
		return 0;
	for (int k = 0; k < n; k++)
		if (ddp_post_recv(s, 0, 0, bufs + (size_t)k * len, len, NULL) != 0)
			return -1;
	if (ev == DDP_SCTP_INITIATE && ddp_sctp_accept(a, 0, NULL, 0) != 0)
		return -1;
	return 1;
}

sctp_ll_io_stats offpath_io(ddp_sctp_ep *ep)
{
	sctp_ll_io_stats st;
	sctp_ll_ep_io_stats(sctp_ddp_ep_ll(ep), &st);
	return st;
}
#endif
