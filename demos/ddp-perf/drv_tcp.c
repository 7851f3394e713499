/* ddp-perf driver "tcp": the raw baseline. Plain TCP on the same event
 * loop, sending the way iperf3 does: writes of whole messages up to 128 KiB
 * (iperf3's default block; one message per write when larger), Nagle's
 * algorithm on; large reads on the receiving side. The receiver counts the
 * messages: whole messages among the octets it received. The rtt mode
 * writes one message at a time with TCP_NODELAY.
 * Loopback: both ends here. Client/server (another process or host): the
 * parameters and the receiver's count go over ctl.c's control connection,
 * the data connections come to the server's same TCP port. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "ctl.h"

#define RBUF (256 * 1024)
#define WCHUNK (128 * 1024) /* iperf3's default write size */

struct tconn {
	int tx, rx;		/* sending fd, receiving fd (loopback: both ends) */
	struct event *wev, *rev;
	size_t off;		/* octets of the current write buffer already written */
	struct trun *run;
};

struct trun {
	struct event_base *base;
	const struct bench_params *p;
	struct bench_result *r;
	struct tconn *c;
	int n;
	uint8_t *msg, *rbuf;
	size_t wlen;		/* msg: that many octets, whole messages */
	double t0;
	int stop;
	struct event *tick;
	/* rtt */
	size_t rtt_have;
	double rtt_sent_at, rtt_sum;
};

/* Non-blocking; TCP_NODELAY only for the round trip, where each message
 * must leave at once. A bulk sender keeps Nagle's algorithm, as iperf3
 * does: a push after every write would only send a short segment at the
 * end of each. */
static int nonblock(int fd, enum bench_mode mode)
{
	int nodelay = mode == MODE_RTT;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof(nodelay));
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void on_write(evutil_socket_t fd, short what, void *arg)
{
	struct tconn *c = arg;
	struct trun *t = c->run;
	if (t->stop)
		return;
	for (int burst = 0; burst < 256; burst++) {
		ssize_t n = write(fd, t->msg + c->off, t->wlen - c->off);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				bench_fail(t->r, "tcp write: %s", strerror(errno));
			return;
		}
		c->off += (size_t)n;
		if (c->off < t->wlen)
			return;
		c->off = 0;
	}
}

static void on_read(evutil_socket_t fd, short what, void *arg)
{
	struct tconn *c = arg;
	struct trun *t = c->run;
	for (int burst = 0; burst < 16; burst++) {
		ssize_t n = read(fd, t->rbuf, RBUF);
		if (n <= 0) {
			if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
				if (!t->stop)
					bench_fail(t->r, "tcp read: connection closed");
				event_del(c->rev);
			}
			return;
		}
		t->r->bytes += (uint64_t)n;
	}
}

/* RTT: client end writes 64 octets, server end echoes, client times it. */
static void rtt_send(struct trun *t)
{
	t->rtt_sent_at = now_s();
	if (write(t->c[0].tx, t->msg, t->p->size) != (ssize_t)t->p->size)
		bench_fail(t->r, "tcp rtt write");
}

static void on_rtt_server(evutil_socket_t fd, short what, void *arg)
{
	struct trun *t = arg;
	ssize_t n = read(fd, t->rbuf, RBUF);
	if (n > 0 && write(fd, t->rbuf, (size_t)n) != n)
		bench_fail(t->r, "tcp rtt echo");
}

static void on_rtt_client(evutil_socket_t fd, short what, void *arg)
{
	struct trun *t = arg;
	ssize_t n = read(fd, t->rbuf, RBUF);
	if (n <= 0)
		return;
	t->rtt_have += (size_t)n;
	if (t->rtt_have < t->p->size)
		return;
	t->rtt_have = 0;
	t->rtt_sum += now_s() - t->rtt_sent_at;
	t->r->msgs++;
	t->r->bytes += t->p->size;
	if (!t->stop)
		rtt_send(t);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct trun *t = arg;
	double el = now_s() - t->t0;
	if (t->p->mode != MODE_RTT)
		t->r->msgs = t->r->bytes / t->p->size;
	bench_progress(t->p, t->r, el);
	if (el >= t->p->duration || t->r->failed) {
		t->stop = 1;
		event_base_loopbreak(t->base);
	}
}

static int tcp_pair(int lfd, const struct sockaddr_in *sa, const char *cc, enum bench_mode mode,
		    int *a, int *b)
{
	*a = socket(AF_INET, SOCK_STREAM, 0);
	if (*a < 0 || bench_set_cc(*a, cc) < 0 || connect(*a, (const struct sockaddr *)sa, sizeof(*sa)) < 0)
		return -1;
	*b = accept(lfd, NULL, NULL);
	if (*b < 0)
		return -1;
	return nonblock(*a, mode) < 0 || nonblock(*b, mode) < 0 ? -1 : 0;
}

/* The events of connection i: the sending end tx, the receiving end rx
 * (-1: in the other process). */
static void conn_events(struct trun *t, int i)
{
	struct tconn *c = &t->c[i];
	if (t->p->mode == MODE_RTT) {
		if (c->rx >= 0)
			c->wev = event_new(t->base, c->rx, EV_READ | EV_PERSIST, on_rtt_server, t);
		if (c->tx >= 0)
			c->rev = event_new(t->base, c->tx, EV_READ | EV_PERSIST, on_rtt_client, t);
	} else {
		if (c->tx >= 0)
			c->wev = event_new(t->base, c->tx, EV_WRITE | EV_PERSIST, on_write, c);
		if (c->rx >= 0)
			c->rev = event_new(t->base, c->rx, EV_READ | EV_PERSIST, on_read, c);
	}
	if (c->wev)
		event_add(c->wev, NULL);
	if (c->rev)
		event_add(c->rev, NULL);
}

static void free_conns(struct trun *t)
{
	for (int i = 0; t->c && i < t->n; i++) {
		if (t->c[i].wev)
			event_free(t->c[i].wev);
		if (t->c[i].rev)
			event_free(t->c[i].rev);
		if (t->c[i].tx >= 0)
			close(t->c[i].tx);
		if (t->c[i].rx >= 0)
			close(t->c[i].rx);
	}
	free(t->c);
	t->c = NULL;
}

static int alloc_run(struct trun *t)
{
	const struct bench_params *p = t->p;
	t->n = p->mode == MODE_RTT ? 1 : p->streams;
	t->c = calloc((size_t)t->n, sizeof(*t->c));
	/* rtt: one message at a time; else as many whole messages as fit
	 * in WCHUNK, at least one */
	t->wlen = p->mode == MODE_RTT || p->size >= WCHUNK ? p->size : WCHUNK / p->size * p->size;
	t->msg = malloc(t->wlen);
	t->rbuf = malloc(RBUF);
	if (!t->c || !t->msg || !t->rbuf)
		return -1;
	bench_fill(t->msg, p->size, 1);
	for (size_t o = p->size; o < t->wlen; o += p->size)
		memcpy(t->msg + o, t->msg, p->size);
	for (int i = 0; i < t->n; i++) {
		t->c[i].run = t;
		t->c[i].tx = t->c[i].rx = -1;
	}
	return 0;
}

static int run_tcp(struct event_base *base, const struct bench_params *p, struct bench_result *r)
{
	struct trun t = { .base = base, .p = p, .r = r };
	struct ctl_client cc = { .fd = -1 };
	int lfd = -1;
	if (alloc_run(&t)) {
		bench_fail(r, "out of memory");
		goto out;
	}
	if (p->role == 2) {
		if (ctl_connect(p, &cc, r))
			goto out;
		for (int i = 0; i < t.n; i++) {
			if ((t.c[i].tx = ctl_data_conn(p, &cc, i, r)) < 0 ||
			    nonblock(t.c[i].tx, p->mode) < 0)
				goto out;
			conn_events(&t, i);
		}
	} else {
		lfd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t sl = sizeof(sa);
		if (lfd < 0 || bench_set_cc(lfd, p->tcp_cc) < 0 ||
		    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 64) < 0 ||
		    getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0) {
			bench_fail(r, "tcp listen: %s", strerror(errno));
			goto out;
		}
		for (int i = 0; i < t.n; i++) {
			if (tcp_pair(lfd, &sa, p->tcp_cc, p->mode, &t.c[i].tx, &t.c[i].rx)) {
				bench_fail(r, "tcp connect: %s", strerror(errno));
				goto out;
			}
			conn_events(&t, i);
		}
	}
	t.tick = event_new(base, -1, EV_PERSIST, on_tick, &t);
	struct timeval tv = { 0, 100000 };
	event_add(t.tick, &tv);
	double c0 = cpu_s();
	t.t0 = now_s();
	if (p->mode == MODE_RTT)
		rtt_send(&t);
	event_base_dispatch(base);
	r->secs = now_s() - t.t0;
	r->cpu = cpu_s() - c0;
	if (p->mode == MODE_RTT && r->msgs)
		r->rtt_us = t.rtt_sum / (double)r->msgs * 1e6;
	else if (p->role == 2 && !r->failed)
		ctl_finish(&cc, r); /* what the server received */
	else
		r->msgs = r->bytes / p->size;
out:
	if (t.tick)
		event_free(t.tick);
	free_conns(&t);
	ctl_close(&cc);
	if (lfd >= 0)
		close(lfd);
	free(t.msg);
	free(t.rbuf);
	return r->failed ? -1 : 0;
}

/* ------------------------------------------------------------ server */

struct tserver {
	struct trun t;
	struct ctl_run *run;
};

static int srv_start(void *drv, struct ctl_run *run, int *data_port)
{
	struct tserver *s = drv;
	struct event_base *base = s->t.base;
	memset(&s->t, 0, sizeof(s->t));
	s->t.base = base;
	s->t.p = &run->p;
	s->t.r = &run->r;
	s->run = run;
	*data_port = 0;
	return alloc_run(&s->t);
}

static void srv_data_conn(void *drv, int fd, int index)
{
	struct tserver *s = drv;
	if (index >= s->t.n || s->t.c[index].rx >= 0) {
		close(fd);
		return;
	}
	s->t.c[index].rx = fd;
	conn_events(&s->t, index);
}

static void srv_stop(void *drv)
{
	struct tserver *s = drv;
	s->t.stop = 1;
	free_conns(&s->t);
	free(s->t.msg);
	free(s->t.rbuf);
	s->t.msg = s->t.rbuf = NULL;
	s->run->r.msgs = s->run->r.bytes / s->run->p.size;
}

static const struct ctl_server_ops srv_ops = { srv_start, srv_data_conn, srv_stop };

static int tcp_main(struct event_base *base, const struct bench_params *p, struct bench_result *r)
{
	if (p->role == 1) {
		struct tserver s = { .t.base = base };
		return ctl_serve(base, p, &srv_ops, &s, r);
	}
	return run_tcp(base, p, r);
}

const struct bench_driver drv_tcp = { "tcp", tcp_main };
