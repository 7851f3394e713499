/* Raw sctp_ll association ends for the port's tests (ll_pair.h). */
#include "ll_pair.h"

#include <unistd.h>

#include <event2/event.h>

/* The default check: octet i of the message is its first octet + i. */
static unsigned long pattern_faults(const uint8_t *msg, long n)
{
	uint8_t seed = n > 0 ? msg[0] : 0;
	unsigned long bad = 0;
	for (long i = 1; i < n; i++)
		if (msg[i] != (uint8_t)(seed + i))
			bad++;
	return bad;
}

static void on_event(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct ll_side *s = user;
	sctp_ll_rinfo ri;
	long n;
	switch (ev) {
	case SCTP_LL_EV_UP:
		s->up = 1;
		break;
	case SCTP_LL_EV_DOWN:
		s->down = 1;
		s->down_status = status;
		break;
	case SCTP_LL_EV_DRY:
		s->dry = 1;
		break;
	case SCTP_LL_EV_READABLE:
		while ((n = sctp_ll_recv(a, s->buf, sizeof(s->buf), &ri)) >= 0) {
			s->bad += s->check ? s->check(s->buf, n, &ri) : pattern_faults(s->buf, n);
			s->bad += !ri.eor;
			s->next_known += ri.next_valid != 0;
			s->got++;
		}
		break;
	default:
		break;
	}
}

const sctp_ll_assoc_cb ll_side_cbs = {on_event};

void ll_side_accept(sctp_ll_ep *ep, sctp_ll_assoc *a, void *user)
{
	struct ll_side *s = user;
	(void)ep;
	s->a = a;
	sctp_ll_assoc_set_cb(a, &ll_side_cbs, s);
}

void ll_run_until(struct event_base *b, const int *flag, const unsigned long *cnt,
		  unsigned long want, int secs)
{
	for (int i = 0; i < secs * 1000; i++) {
		if ((flag && *flag) || (cnt && *cnt >= want))
			return;
		event_base_loop(b, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		usleep(500);
	}
}
