/* ddp-scale: a server or client process (scale.h): its event loop, the
 * command socket to main.c and the 10 ms tick that sends what is due. */
#include "scale.h"

#include <errno.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#define TICK_MS 10

long scale_rss_kib(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

long scale_heap_kib(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	struct mallinfo2 mi = mallinfo2();
	return (long)((mi.uordblks + mi.hblkhd) / 1024);
#else
	return -1;
#endif
}

uint64_t scale_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

unsigned scale_due(const struct scale_opts *o, unsigned n, uint64_t *last_ms, double *acc)
{
	uint64_t now = scale_now_ms();
	uint64_t dt = *last_ms ? now - *last_ms : TICK_MS;
	*last_ms = now;
	*acc += (double)n * (double)dt / (double)(o->interval_ms ? o->interval_ms : 1);
	if (*acc > 2.0 * n) /* a stalled loop does not send a burst */
		*acc = 2.0 * n;
	unsigned k = (unsigned)*acc;
	*acc -= k;
	return k;
}

static void answer(struct side *sd, int failed)
{
	struct scale_rep r;
	memset(&r, 0, sizeof(r));
	sd->ops->fill(sd, &r);
	r.failed = failed;
	r.rss_kib = scale_rss_kib();
	r.heap_kib = scale_heap_kib();
	if (write(sd->fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		event_base_loopbreak(sd->base);
	sd->pending = 0;
}

/* commands that wait for something give up after this */
#define CMD_TIMEOUT_MS 120000

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct side *sd = arg;
	sd->ops->tick(sd);
	if (!sd->pending)
		return;
	if (sd->ops->done(sd, sd->pending))
		answer(sd, 0);
	else if (scale_now_ms() - sd->since_ms > CMD_TIMEOUT_MS)
		answer(sd, 1);
}

static void on_cmd(evutil_socket_t fd, short what, void *arg)
{
	struct side *sd = arg;
	unsigned char c;
	int port = 0;
	if (read(fd, &c, 1) != 1 || c == CMD_EXIT ||
	    (c == CMD_OPEN && read(fd, &port, sizeof(port)) != (ssize_t)sizeof(port))) {
		event_base_loopbreak(sd->base);
		return;
	}
	sd->pending = c;
	sd->since_ms = scale_now_ms();
	if (sd->ops->start(sd, c, port) != 0)
		answer(sd, 1);
	else if (sd->ops->done(sd, c))
		answer(sd, 0);
}

int side_main(const struct scale_opts *o, const struct side_ops *ops, int server, int fd)
{
	struct side sd;
	memset(&sd, 0, sizeof(sd));
	sd.o = o;
	sd.ops = ops;
	sd.server = server;
	sd.fd = fd;
	sd.base = event_base_new();
	if (!sd.base)
		return 3;
	int port = ops->init(&sd);
	if (port < 0) {
		fprintf(stderr, "ddp-scale: %s set-up failed\n", server ? "server" : "client");
		return 4;
	}
	/* the ready answer: "before" */
	struct scale_rep r;
	memset(&r, 0, sizeof(r));
	ops->fill(&sd, &r);
	r.port = port;
	r.rss_kib = scale_rss_kib();
	r.heap_kib = scale_heap_kib();
	if (write(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		return 5;
	struct event *cmd = event_new(sd.base, fd, EV_READ | EV_PERSIST, on_cmd, &sd);
	struct event *tick = event_new(sd.base, -1, EV_PERSIST, on_tick, &sd);
	struct timeval tv = {0, TICK_MS * 1000};
	if (!cmd || !tick || event_add(cmd, NULL) || event_add(tick, &tv))
		return 6;
	event_base_dispatch(sd.base);
	/* the process exits: the kernel closes what is left */
	return 0;
}
