/* Event-loop waits for integration tests (loop_wait.h). */
#include "loop_wait.h"

#if HAVE_LIBEVENT
#include <event2/event.h>

#include "net_helpers.h"

static void slice(struct event_base *base)
{
	struct timeval tv = { 0, 5000 };
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

int loop_wait_flag(struct event_base *base, const int *flag, double secs)
{
	double end = net_now_s() + secs;
	while (!*flag && net_now_s() < end)
		slice(base);
	return *flag;
}

int loop_wait_count(struct event_base *base, const uint64_t *n, uint64_t want, double secs)
{
	double end = net_now_s() + secs;
	while (*n < want && net_now_s() < end)
		slice(base);
	return *n >= want;
}
#endif
