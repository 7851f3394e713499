/* DDP and MPA callbacks that only count what happened, for the limit and
 * flood tests (one test at a time per process: the counters are global;
 * clear them with memset(&cnt, 0, sizeof(cnt))). */
#ifndef DDP_TEST_NET_COUNTS_H
#define DDP_TEST_NET_COUNTS_H

#include <ddp/ddp.h>
#include <ddp/mpa.h>

struct counts {
	long delivered, errors, send_done, aborted, accepts, connected, failed;
	int last_err, last_code;	/* of the last failed MPA event */
	ddp_error_info err;		/* the last DDP error */
};
extern struct counts cnt;

/* deliver/send_done count successes and aborts, error keeps the last */
extern const ddp_callbacks count_cbs;
/* DDP_MPA_CONNECTED counts connected; anything else failed + err/code */
void count_mpa_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err,
		     uint8_t code, void *user);

#endif
