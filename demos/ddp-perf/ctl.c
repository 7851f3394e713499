/* ddp-perf: the raw baselines' control connection (see ctl.h). Messages
 * are little endian: hello 36 octets (magic, kind, mode, index, n, size,
 * run, llp name), answer 8 (magic, data port, status), STOP 4, report 20
 * (magic, received octets, received messages). The control socket is
 * blocking with timeouts: it carries a few octets at the start and at the
 * end of a run, never during the measurement. */
#include "ctl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAGIC 0x46504444u /* "DDPF" */
#define STOP_MAGIC 0x504f5453u /* "STOP" */
#define HELLO_LEN 36
#define ANSWER_LEN 8
#define REPORT_LEN 20
enum { KIND_CONTROL = 1, KIND_DATA = 2 };

static void put32(uint8_t *o, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		o[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *i)
{
	return (uint32_t)i[0] | (uint32_t)i[1] << 8 | (uint32_t)i[2] << 16 | (uint32_t)i[3] << 24;
}
static void put64(uint8_t *o, uint64_t v)
{
	put32(o, (uint32_t)v);
	put32(o + 4, (uint32_t)(v >> 32));
}
static uint64_t get64(const uint8_t *i)
{
	return (uint64_t)get32(i) | (uint64_t)get32(i + 4) << 32;
}

static void set_timeout(int fd, int secs)
{
	struct timeval tv = { secs, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int read_all(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = recv(fd, buf + got, len - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	return send(fd, buf, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

static void hello_put(uint8_t *o, int kind, const struct bench_params *p, int index, uint32_t run)
{
	memset(o, 0, HELLO_LEN);
	put32(o, MAGIC);
	o[4] = (uint8_t)kind;
	o[5] = (uint8_t)p->mode;
	o[6] = (uint8_t)index;
	o[7] = (uint8_t)(index >> 8);
	o[8] = (uint8_t)p->streams;
	o[9] = (uint8_t)(p->streams >> 8);
	put32(o + 12, (uint32_t)p->size);
	put32(o + 16, run);
	strncpy((char *)o + 20, p->llp, 15);
}

static int connect_to(const struct bench_params *p, struct bench_result *r)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		bench_fail(r, "control socket: %s", strerror(errno));
		return -1;
	}
	set_timeout(fd, 10);
	/* the client end sends: its congestion control is the one that acts
	 * (the server's listener sets it for the receiving end only) */
	if (bench_set_cc(fd, p->tcp_cc) < 0) {
		bench_fail(r, "congestion control %s: %s", p->tcp_cc, strerror(errno));
		close(fd);
		return -1;
	}
	if (connect(fd, (const struct sockaddr *)&p->addr, p->addrlen) < 0) {
		bench_fail(r, "connect to the server: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int ctl_connect(const struct bench_params *p, struct ctl_client *c, struct bench_result *r)
{
	static uint32_t seq;
	c->run = ((uint32_t)getpid() << 12) ^ (uint32_t)(now_s() * 1e3) ^ ++seq;
	c->data_port = 0;
	if ((c->fd = connect_to(p, r)) < 0)
		return -1;
	uint8_t b[HELLO_LEN];
	hello_put(b, KIND_CONTROL, p, 0, c->run);
	if (write_all(c->fd, b, HELLO_LEN) || read_all(c->fd, b, ANSWER_LEN) || get32(b) != MAGIC) {
		bench_fail(r, "no answer from the %s server (is it one?)", p->llp);
		ctl_close(c);
		return -1;
	}
	if (b[6]) {
		bench_fail(r, "the server refused the run (%s)",
			   b[6] == 2 ? "it serves another --llp" : "data side set-up failed");
		ctl_close(c);
		return -1;
	}
	c->data_port = b[4] | b[5] << 8;
	return 0;
}

int ctl_data_conn(const struct bench_params *p, const struct ctl_client *c, int index,
		  struct bench_result *r)
{
	int fd = connect_to(p, r);
	if (fd < 0)
		return -1;
	uint8_t b[HELLO_LEN];
	hello_put(b, KIND_DATA, p, index, c->run);
	if (write_all(fd, b, HELLO_LEN)) {
		bench_fail(r, "data connection hello: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int ctl_finish(struct ctl_client *c, struct bench_result *r)
{
	uint8_t b[REPORT_LEN];
	put32(b, STOP_MAGIC);
	if (write_all(c->fd, b, 4) || read_all(c->fd, b, REPORT_LEN) || get32(b) != MAGIC) {
		bench_fail(r, "no count from the server");
		return -1;
	}
	r->bytes = get64(b + 4);
	r->msgs = get64(b + 12);
	return 0;
}

void ctl_close(struct ctl_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* ------------------------------------------------------------ server */

struct cserver {
	struct event_base *base;
	const struct bench_params *p;
	const struct ctl_server_ops *ops;
	void *drv;
	struct ctl_run run;
	int active, cfd;
	struct event *cev;
};

static void end_run(struct cserver *s, int answer)
{
	if (!s->active)
		return;
	s->ops->stop(s->drv);
	s->active = 0;
	if (answer) {
		uint8_t b[REPORT_LEN];
		put32(b, MAGIC);
		put64(b + 4, s->run.r.bytes);
		put64(b + 12, s->run.r.msgs);
		if (write_all(s->cfd, b, REPORT_LEN))
			fprintf(stderr, "ddp-perf: sending the count: %s\n", strerror(errno));
	}
	const struct bench_params *rp = &s->run.p;
	printf("{\"role\":\"server\",\"llp\":\"%s\",\"mode\":\"%s\",\"size\":%zu,\"streams\":%d,"
	       "\"msgs\":%llu,\"bytes\":%llu,\"ok\":%s}\n",
	       s->p->llp, rp->mode == MODE_RTT ? "rtt" : "raw", rp->size, rp->streams,
	       (unsigned long long)s->run.r.msgs, (unsigned long long)s->run.r.bytes,
	       answer && !s->run.r.failed ? "true" : "false");
	fflush(stdout);
	event_free(s->cev);
	s->cev = NULL;
	close(s->cfd);
	s->cfd = -1;
	bench_server_done(s->p, 0);
}

static void on_ctl(evutil_socket_t fd, short what, void *arg)
{
	struct cserver *s = arg;
	uint8_t b[4];
	/* STOP, or the client went away (no answer then) */
	int ok = read_all((int)fd, b, 4) == 0 && get32(b) == STOP_MAGIC;
	end_run(s, ok);
}

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
	struct cserver *s = arg;
	int fd = accept((int)lfd, NULL, NULL);
	if (fd < 0)
		return;
	set_timeout(fd, 2);
	uint8_t b[HELLO_LEN];
	if (read_all(fd, b, HELLO_LEN) || get32(b) != MAGIC) {
		close(fd);
		return;
	}
	int kind = b[4], index = b[6] | b[7] << 8, n = b[8] | b[9] << 8;
	uint32_t run = get32(b + 16);
	if (kind == KIND_DATA) {
		if (s->active && run == s->run.run && index < s->run.p.streams && s->ops->data_conn) {
			int one = 1;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
			s->ops->data_conn(s->drv, fd, index);
		} else {
			close(fd);
		}
		return;
	}
	end_run(s, 0); /* a new client run: the old one's client is gone */
	uint8_t a[ANSWER_LEN] = { 0 };
	put32(a, MAGIC);
	char llp[16];
	memcpy(llp, b + 20, 15);
	llp[15] = 0;
	uint32_t size = get32(b + 12);
	if (kind != KIND_CONTROL || strcmp(llp, s->p->llp) || !n || n > 1024 || b[5] > MODE_RTT ||
	    !size || size > (1u << 24)) {
		a[6] = 2;
		write_all(fd, a, ANSWER_LEN);
		close(fd);
		return;
	}
	struct ctl_run *cr = &s->run;
	memset(cr, 0, sizeof(*cr));
	cr->p = *s->p;
	cr->p.mode = (enum bench_mode)b[5];
	cr->p.size = size;
	cr->p.streams = n;
	cr->run = run;
	int port = 0;
	if (s->ops->start(s->drv, cr, &port)) {
		a[6] = 1;
		write_all(fd, a, ANSWER_LEN);
		close(fd);
		return;
	}
	a[4] = (uint8_t)port;
	a[5] = (uint8_t)(port >> 8);
	s->active = 1;
	s->cfd = fd;
	s->cev = event_new(s->base, fd, EV_READ, on_ctl, s);
	event_add(s->cev, NULL);
	if (write_all(fd, a, ANSWER_LEN))
		end_run(s, 0);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopbreak(arg);
}

int ctl_serve(struct event_base *base, const struct bench_params *p,
	      const struct ctl_server_ops *ops, void *drv, struct bench_result *r)
{
	struct cserver s = { .base = base, .p = p, .ops = ops, .drv = drv, .cfd = -1 };
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int one = 1;
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bench_set_cc(lfd, p->tcp_cc) < 0 ||
	    bind(lfd, (const struct sockaddr *)&p->addr, p->addrlen) < 0 || listen(lfd, 1100) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0) {
		bench_fail(r, "%s server: listen: %s", p->llp, strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	char line[96], host[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &sa.sin_addr, host, sizeof(host));
	snprintf(line, sizeof(line), "%s server on %s port %d (TCP control%s)", p->llp, host,
		 ntohs(sa.sin_port), strcmp(p->llp, "tcp") ? ", UDP data" : " and data");
	struct event *lev = event_new(base, lfd, EV_READ | EV_PERSIST, on_accept, &s);
	struct event *si = evsignal_new(base, SIGINT, on_signal, base);
	struct event *st = evsignal_new(base, SIGTERM, on_signal, base);
	event_add(lev, NULL);
	event_add(si, NULL);
	event_add(st, NULL);
	bench_serving(p, line, ntohs(sa.sin_port));
	event_base_dispatch(base);
	end_run(&s, 0);
	event_free(lev);
	event_free(si);
	event_free(st);
	close(lfd);
	return 0;
}
