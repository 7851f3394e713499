/* Counting callbacks for the limit and flood tests (net_counts.h). */
#include "net_counts.h"

struct counts cnt;

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	if (d->status == 0)
		cnt.delivered++;
	else
		cnt.aborted++;
}

static void on_send_done(ddp_session *s, uint32_t st, void *c, int status,
			 void *user)
{
	if (status == 0)
		cnt.send_done++;
	else
		cnt.aborted++;
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	cnt.errors++;
	cnt.err = *e;
}

const ddp_callbacks count_cbs = {
	.deliver = on_deliver, .send_done = on_send_done, .error = on_error,
};

void count_mpa_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err,
		     uint8_t code, void *user)
{
	if (ev == DDP_MPA_CONNECTED) {
		cnt.connected++;
		return;
	}
	cnt.failed++;
	cnt.last_err = err;
	cnt.last_code = code;
}
