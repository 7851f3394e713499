/* ddp-perf driver "udp": the packet-at-a-time wire ceiling of the SCTP
 * family. Raw UDP datagrams of the size DDP/SCTP's packets have, sent with
 * sendmmsg and received with recvmmsg in batches of BATCH, no GSO/GRO, no
 * flow control: what the receiver gets is counted, drops are not.
 *
 * Datagram payload: --mtu (the link MTU) - 28 (IPv4 + UDP headers); without
 * --mtu, the route's MTU towards the receiver (IP_MTU of a connected
 * socket: 1500 on a veth, 65536 on loopback) - 28, at most 65507, the
 * largest UDP payload over IPv4. The message size of the row is not used:
 * one message is one datagram.
 *
 * Loopback: one receiving socket and `streams` sending sockets here.
 * Client/server: parameters and the receiver's count go over ctl.c's
 * control connection; each datagram starts with the run's id, so late
 * datagrams of an earlier run are not counted. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "ctl.h"

#define BATCH 64
#define MAX_DGRAM 65507
#define SOCKBUF (8 << 20)

struct udp_rx {
	int fd;
	struct event *ev;
	uint32_t run, dgram;	/* dgram 0: any length counts (server) */
	uint8_t *bufs;		/* BATCH x MAX_DGRAM */
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct bench_result *r;
	int counting;
};

struct udp_tx {
	int n, *fd;
	struct event **ev;
	uint8_t *pkt;
	uint32_t dgram;
	struct mmsghdr msgs[BATCH];
	struct iovec iov;
	struct bench_result *r;
	uint64_t sent;
	int stop;
};

static void sockbufs(int fd)
{
	int v = SOCKBUF;
	/* root may pass net.core.[rw]mem_max; others get what the sysctls allow */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* The datagram payload size towards dst (see the top of the file). */
static uint32_t dgram_size(const struct bench_params *p, const struct sockaddr_in *dst)
{
	long mtu = p->mtu;
	if (!mtu) {
		int fd = socket(AF_INET, SOCK_DGRAM, 0);
		int v = 0;
		socklen_t vl = sizeof(v);
		if (fd >= 0 && connect(fd, (const struct sockaddr *)dst, sizeof(*dst)) == 0 &&
		    getsockopt(fd, IPPROTO_IP, IP_MTU, &v, &vl) == 0)
			mtu = v;
		if (fd >= 0)
			close(fd);
	}
	if (mtu <= 28 + 8)
		mtu = 1500;
	return mtu - 28 > MAX_DGRAM ? MAX_DGRAM : (uint32_t)(mtu - 28);
}

/* ---------------------------------------------------------- receiver */

static void on_rx(evutil_socket_t fd, short what, void *arg)
{
	struct udp_rx *x = arg;
	for (int round = 0; round < 16; round++) {
		for (int i = 0; i < BATCH; i++)
			x->msgs[i].msg_len = 0;
		int n = recvmmsg((int)fd, x->msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			return;
		for (int i = 0; i < n; i++) {
			const uint8_t *b = x->iov[i].iov_base;
			uint32_t run;
			memcpy(&run, b, 4);
			unsigned len = x->msgs[i].msg_len;
			if (x->counting && len >= 4 && run == x->run && (!x->dgram || len == x->dgram)) {
				x->r->bytes += x->msgs[i].msg_len;
				x->r->msgs++;
			}
		}
		if (n < BATCH)
			return;
	}
}

/* Bind the receiving socket to addr (port 0: any); fills the port. */
static int rx_open(struct udp_rx *x, struct event_base *base, struct sockaddr_in *addr,
		   uint32_t dgram, uint32_t run, struct bench_result *r)
{
	memset(x, 0, sizeof(*x));
	x->dgram = dgram;
	x->run = run;
	x->r = r;
	x->fd = socket(AF_INET, SOCK_DGRAM, 0);
	socklen_t sl = sizeof(*addr);
	x->bufs = malloc((size_t)BATCH * MAX_DGRAM);
	if (x->fd < 0 || !x->bufs || bind(x->fd, (struct sockaddr *)addr, sizeof(*addr)) < 0 ||
	    getsockname(x->fd, (struct sockaddr *)addr, &sl) < 0) {
		bench_fail(r, "udp receiver: %s", strerror(errno));
		return -1;
	}
	sockbufs(x->fd);
	for (int i = 0; i < BATCH; i++) {
		x->iov[i] = (struct iovec){ x->bufs + (size_t)i * MAX_DGRAM, MAX_DGRAM };
		x->msgs[i].msg_hdr = (struct msghdr){ .msg_iov = &x->iov[i], .msg_iovlen = 1 };
	}
	x->ev = event_new(base, x->fd, EV_READ | EV_PERSIST, on_rx, x);
	event_add(x->ev, NULL);
	x->counting = 1;
	return 0;
}

static void rx_close(struct udp_rx *x)
{
	if (x->ev)
		event_free(x->ev);
	if (x->fd >= 0)
		close(x->fd);
	free(x->bufs);
	memset(x, 0, sizeof(*x));
	x->fd = -1;
}

/* ------------------------------------------------------------ sender */

static void on_tx(evutil_socket_t fd, short what, void *arg)
{
	struct udp_tx *t = arg;
	if (t->stop)
		return;
	for (int round = 0; round < 4; round++) {
		int n = sendmmsg((int)fd, t->msgs, BATCH, MSG_DONTWAIT);
		if (n < 0) {
			/* a full queue (veth, qdisc) or an ICMP error of an
			 * earlier datagram: not this send's business */
			if (errno != EAGAIN && errno != ENOBUFS && errno != ECONNREFUSED &&
			    errno != EINTR)
				bench_fail(t->r, "udp sendmmsg: %s", strerror(errno));
			return;
		}
		t->sent += (uint64_t)n;
		if (n < BATCH)
			return;
	}
}

static int tx_open(struct udp_tx *t, struct event_base *base, const struct sockaddr_in *dst,
		   int n, uint32_t dgram, uint32_t run, struct bench_result *r)
{
	memset(t, 0, sizeof(*t));
	t->n = n;
	t->dgram = dgram;
	t->r = r;
	t->fd = calloc((size_t)n, sizeof(*t->fd));
	t->ev = calloc((size_t)n, sizeof(*t->ev));
	t->pkt = malloc(dgram);
	if (!t->fd || !t->ev || !t->pkt) {
		bench_fail(r, "out of memory");
		return -1;
	}
	bench_fill(t->pkt, dgram, 1);
	memcpy(t->pkt, &run, 4);
	t->iov = (struct iovec){ t->pkt, dgram };
	for (int i = 0; i < BATCH; i++)
		t->msgs[i].msg_hdr = (struct msghdr){ .msg_iov = &t->iov, .msg_iovlen = 1 };
	for (int i = 0; i < n; i++)
		t->fd[i] = -1;
	for (int i = 0; i < n; i++) {
		t->fd[i] = socket(AF_INET, SOCK_DGRAM, 0);
		if (t->fd[i] < 0 || connect(t->fd[i], (const struct sockaddr *)dst, sizeof(*dst)) < 0) {
			bench_fail(r, "udp sender: %s", strerror(errno));
			return -1;
		}
		sockbufs(t->fd[i]);
		t->ev[i] = event_new(base, t->fd[i], EV_WRITE | EV_PERSIST, on_tx, t);
	}
	return 0;
}

static void tx_close(struct udp_tx *t)
{
	for (int i = 0; t->fd && i < t->n; i++) {
		if (t->ev[i])
			event_free(t->ev[i]);
		if (t->fd[i] >= 0)
			close(t->fd[i]);
	}
	free(t->fd);
	free(t->ev);
	free(t->pkt);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------ a run */

struct uclock {
	struct event_base *base;
	const struct bench_params *p;
	struct bench_result *r;
	double t0;
};

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct uclock *k = arg;
	double el = now_s() - k->t0;
	bench_progress(k->p, k->r, el);
	if (el >= k->p->duration || k->r->failed)
		event_base_loopbreak(k->base);
}

static int run_udp(struct event_base *base, const struct bench_params *p, struct bench_result *r)
{
	struct udp_rx x = { .fd = -1 };
	struct udp_tx t = { 0 };
	struct ctl_client cc = { .fd = -1 };
	struct uclock k = { base, p, r, 0 };
	struct event *tick = NULL;
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint32_t run = (uint32_t)getpid() ^ (uint32_t)(now_s() * 1e6);
	if (p->mode == MODE_RTT) {
		bench_fail(r, "udp has no rtt mode (datagrams get lost)");
		return -1;
	}
	if (p->role == 2) {
		if (ctl_connect(p, &cc, r))
			goto out;
		memcpy(&dst, &p->addr, sizeof(dst));
		dst.sin_port = htons((uint16_t)cc.data_port);
		run = cc.run;
	} else if (rx_open(&x, base, &dst, dgram_size(p, &dst), run, r)) {
		goto out;
	}
	r->dgram = dgram_size(p, &dst);
	if (tx_open(&t, base, &dst, p->streams, r->dgram, run, r))
		goto out;
	tick = event_new(base, -1, EV_PERSIST, on_tick, &k);
	struct timeval tv = { 0, 100000 };
	event_add(tick, &tv);
	double c0 = cpu_s();
	k.t0 = now_s();
	for (int i = 0; i < t.n; i++)
		event_add(t.ev[i], NULL);
	event_base_dispatch(base);
	t.stop = 1;
	x.counting = 0;
	r->secs = now_s() - k.t0;
	r->cpu = cpu_s() - c0;
	if (p->role == 2 && !r->failed)
		ctl_finish(&cc, r); /* what the server received */
out:
	if (tick)
		event_free(tick);
	tx_close(&t);
	rx_close(&x);
	ctl_close(&cc);
	return r->failed ? -1 : 0;
}

/* ------------------------------------------------------------ server */

struct userver {
	struct event_base *base;
	struct udp_rx x;
	struct ctl_run *run;
};

static int srv_start(void *drv, struct ctl_run *run, int *data_port)
{
	struct userver *s = drv;
	struct sockaddr_in a;
	memcpy(&a, &run->p.addr, sizeof(a));
	s->run = run;
	/* the size the client sends: its --mtu, or its route's MTU; any
	 * complete datagram of this run counts */
	if (rx_open(&s->x, s->base, &a, 0, run->run, &run->r)) {
		rx_close(&s->x);
		return -1;
	}
	s->x.dgram = 0;
	*data_port = ntohs(a.sin_port);
	return 0;
}

static void srv_stop(void *drv)
{
	struct userver *s = drv;
	rx_close(&s->x);
}

static const struct ctl_server_ops srv_ops = { srv_start, NULL, srv_stop };

static int udp_main(struct event_base *base, const struct bench_params *p, struct bench_result *r)
{
	if (p->role == 1) {
		struct userver s = { .base = base, .x.fd = -1 };
		return ctl_serve(base, p, &srv_ops, &s, r);
	}
	return run_udp(base, p, r);
}

const struct bench_driver drv_udp = { "udp", udp_main };
