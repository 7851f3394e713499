/* The MPA listener's connection caps (ddp_mpa_config.max_conns) under a
 * flood: established, well-behaved connections (they read what they are
 * sent; quiet for longer than the idle time) are never the victims while
 * stalled ones exist. The attacker (127.0.0.3) opens connections that
 * finish the MPA start-up and then never read again (a 4 KiB receive
 * buffer: a zero window once the server's 64 KiB greeting is sent), and
 * half-open ones that never finish the start-up, up to and past the cap.
 * The cap makes room with the attacker's connections (start-up not
 * finished, or stalled) or refuses the new one; the legitimate clients
 * (127.0.0.2) all stay, and a legitimate newcomer after the flood is
 * served. Before, the least recently active quiet connection went first:
 * the legitimate ones. Clients are plain sockets speaking MPA by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include "ddpwire.h"
#include "mpa_craft.h"
#include "net_helpers.h"

#define CAP      12
#define NLEGIT   4
#define NATTACK  12 /* per wave: half stall, half stay half-open */
#define GREET    4  /* messages of MSG octets the server sends each peer */
#define MSG      16384
#define PEER_BUF 4096

static struct event_base *base;
static ddp_ctx *ctx;
static uint8_t feed[MSG], rxbuf[256];
static int nup, nlimit, nstalled_logged, nlegit_named;

struct srv {
	int sent;
};

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	(void)user, (void)level;
	print_message("log: %s\n", msg);
	if (strstr(msg, "evicted") && strstr(msg, "stalled"))
		nstalled_logged++;
	if (strstr(msg, "evicted 127.0.0.2:"))
		nlegit_named++;
}

/* the greeting: GREET messages, the rest at the writable callback */
static void push(ddp_session *s, struct srv *z)
{
	struct iovec v = {feed, MSG};
	while (z->sent < GREET && ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL) == 0)
		z->sent++;
}

static void on_writable(ddp_session *s, uint32_t st, void *user)
{
	(void)st;
	push(s, user);
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)user;
	if (d->status == 0)
		ddp_post_recv(s, 0, 0, rxbuf, sizeof(rxbuf), NULL);
}

/* the client went away: close our half too */
static void on_stream_event(ddp_session *s, uint32_t st, enum ddp_stream_event ev, int status,
                            void *user)
{
	(void)st, (void)status, (void)user;
	if (ev == DDP_EV_HALF_CLOSED)
		ddp_session_close(s, 0);
}

static const ddp_callbacks cbs = {
    .deliver = on_deliver, .writable = on_writable, .stream_event = on_stream_event};

static void on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	(void)code;
	if (ev == DDP_MPA_CONNECTED) {
		struct srv *z = calloc(1, sizeof(*z));
		assert_non_null(z);
		ddp_mpa_set_user(c, z);
		nup++;
		ddp_post_recv(ddp_mpa_session(c), 0, 0, rxbuf, sizeof(rxbuf), NULL);
		push(ddp_mpa_session(c), z);
		return;
	}
	if (ev == DDP_MPA_FAILED && err == DDP_ERR_LIMIT)
		nlimit++;
	free(user);
	ddp_mpa_conn_free(c);
}

struct client {
	int fd, legit, dead, up;
	size_t got; /* octets read (legitimate clients read everything) */
};

static int client_socket(int host, int rcvbuf)
{
	char src[32];
	snprintf(src, sizeof(src), "127.0.0.%d", host);
	struct sockaddr_in ca = {.sin_family = AF_INET};
	inet_pton(AF_INET, src, &ca.sin_addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	if (rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	assert_int_equal(bind(fd, (struct sockaddr *)&ca, sizeof(ca)), 0);
	return fd;
}

/* Legitimate clients read whatever comes; a reset or an EOF is an
 * eviction. */
static void drain(struct client *k, int n)
{
	uint8_t b[16384];
	for (int i = 0; i < n; i++) {
		while (k[i].up && !k[i].dead) {
			ssize_t r = recv(k[i].fd, b, sizeof(b), MSG_DONTWAIT);
			if (r > 0) {
				k[i].got += (size_t)r;
				continue;
			}
			if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
				k[i].dead = 1;
			break;
		}
	}
}

static struct client legit[NLEGIT + 1];

static void pump(double secs)
{
	double t0 = net_now_s();
	do {
		net_run_for(base, 0.01);
		drain(legit, NLEGIT + 1);
	} while (net_now_s() - t0 < secs);
}

/* TCP connect from 127.0.0.<host>; with start-up: the Request, the Reply
 * read, and one small untagged message (the Responder sends only after the
 * Initiator's first FPDU, RFC 5044 §7.1.4). Returns 0 when the connection
 * was refused or reset instead. */
static int client_open(struct client *k, int port, int host, int legit_, int startup)
{
	struct sockaddr_in sa = net_lo(port);
	memset(k, 0, sizeof(*k));
	k->legit = legit_;
	k->fd = client_socket(host, legit_ ? 0 : PEER_BUF);
	assert_int_equal(connect(k->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	if (!startup) {
		assert_int_equal(send(k->fd, "MPA ", 4, MSG_NOSIGNAL), 4); /* and no more */
		return 1;
	}
	uint8_t req[64], rep[20], seg[64], fpdu[128];
	size_t rl = mpa_craft_request(req, sizeof(req), 1, 1), got = 0;
	if (send(k->fd, req, rl, MSG_NOSIGNAL) != (ssize_t)rl)
		return 0;
	for (int i = 0; i < 300 && got < sizeof(rep); i++) {
		pump(0.005);
		ssize_t r = recv(k->fd, rep + got, sizeof(rep) - got, MSG_DONTWAIT);
		if (r == 0 || (r < 0 && errno != EAGAIN))
			return 0;
		if (r > 0)
			got += (size_t)r;
	}
	if (got < sizeof(rep))
		return 0;
	assert_memory_equal(rep, "MPA ID Rep Frame", 16);
	size_t sl = tw_untagged(seg, 1, 1, 0, 0, 1, 0, "hello", 5);
	size_t fl = mpa_craft_fpdu(fpdu, sizeof(fpdu), seg, sl, 1);
	if (send(k->fd, fpdu, fl, MSG_NOSIGNAL) != (ssize_t)fl)
		return 0;
	k->up = 1;
	pump(0.01);
	return 1;
}

static int alive(struct client *k)
{
	if (k->legit) {
		drain(k, 1);
		return !k->dead;
	}
	/* an attacker's unread octets hide the reset from recv */
	struct tcp_info ti;
	socklen_t tl = sizeof(ti);
	return getsockopt(k->fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0 &&
	       ti.tcpi_state == 1 /* TCP_ESTABLISHED */;
}

/* One wave of the flood: NATTACK connections as fast as the loop takes
 * them, stalling and half-open in turn (or all stalling). Returns how
 * many were let in. */
static int flood(struct client *a, int port, int half_open)
{
	int in = 0;
	for (int i = 0; i < NATTACK; i++)
		in += client_open(&a[i], port, 3, 0, !half_open || i % 2 == 0);
	pump(0.05);
	return in;
}

static void run(int half_open)
{
	alarm(40);
	nup = nlimit = nstalled_logged = nlegit_named = 0;
	base = event_base_new();
	ddp_ctx_config cc = {.log = on_log};
	assert_int_equal(ddp_ctx_new(&cc, &ctx), 0);
	memset(feed, 'g', sizeof(feed));
	struct sockaddr_in sa = net_lo(0);
	ddp_mpa_listener *l;
	ddp_mpa_config mc;
	memset(&mc, 0, sizeof(mc));
	mc.revision = 1;
	mc.max_conns = CAP;
	mc.dead_peer_timeout_ms = 2000; /* liveness checks every 0.5 s */
	assert_int_equal(ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &cbs,
	                                NULL, on_event, NULL, &l),
	                 0);
	int port = ddp_mpa_listener_port(l);

	/* the legitimate clients: up, greeted, everything read, then quiet
	 * for longer than the idle time */
	for (int i = 0; i < NLEGIT; i++)
		assert_true(client_open(&legit[i], port, 2, 1, 1));
	pump(1.2);
	for (int i = 0; i < NLEGIT; i++)
		assert_true(legit[i].got >= GREET * MSG);
	assert_int_equal(nup, NLEGIT);

	/* wave 1 fills the cap while none of its connections is known to be
	 * stalled yet; wave 2 comes once they are */
	static struct client w1[NATTACK], w2[NATTACK];
	int in1 = flood(w1, port, half_open);
	pump(1.8);
	int in2 = flood(w2, port, half_open);
	pump(0.3);

	/* a legitimate newcomer is served: a stalled connection makes room */
	/* (refused while every attacker's connection is still being judged) */
	double t_new = net_now_s();
	int tries = 1;
	while (!client_open(&legit[NLEGIT], port, 4, 1, 1) && net_now_s() - t_new < 3.0) {
		close(legit[NLEGIT].fd);
		pump(0.2);
		tries++;
	}
	assert_true(legit[NLEGIT].up);
	t_new = net_now_s() - t_new;
	pump(0.3);

	int legit_alive = 0, attack_alive = 0;
	for (int i = 0; i <= NLEGIT; i++)
		legit_alive += alive(&legit[i]);
	for (int i = 0; i < NATTACK; i++)
		attack_alive += alive(&w1[i]) + alive(&w2[i]);
	print_message("cap %d, %d legitimate + 2 x %d attacking (%s; %d and %d let in): %d "
	              "legitimate alive, %d attacking alive, %d ended with "
	              "DDP_ERR_LIMIT, %d stalled evictions logged; the newcomer served at try %d "
	              "after %.2f s\n",
	              CAP, NLEGIT + 1, NATTACK,
	              half_open ? "half stalling, half half-open" : "all stalling", in1, in2,
	              legit_alive, attack_alive, nlimit, nstalled_logged, tries, t_new);
	assert_int_equal(legit_alive, NLEGIT + 1);
	assert_int_equal(nlegit_named, 0);
	/* DDP_ERR_LIMIT ends only established connections: with every
	 * legitimate one alive, these were stalled ones */
	assert_true(nlimit >= 1);
	assert_true(attack_alive <= CAP - (NLEGIT + 1));

	for (int i = 0; i <= NLEGIT; i++)
		close(legit[i].fd);
	for (int i = 0; i < NATTACK; i++)
		close(w1[i].fd), close(w2[i].fd);
	ddp_mpa_listener_free(l);
	for (int i = 0; i < 100 && ddp_ctx_free(ctx) != 0; i++)
		net_run_for(base, 0.05);
	event_base_free(base);
	alarm(0);
}

/* stalling and half-open connections: the half-open ones make room
 * while the stalling ones are judged */
static void test_mpa_cap_evicts_stalled_never_quiet_legit(void **st)
{
	(void)st;
	run(1);
}

/* stalling ones alone: while they are judged the newcomers are refused;
 * once they are stalled they make room */
static void test_mpa_cap_refuses_while_judging_never_quiet_legit(void **st)
{
	(void)st;
	run(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mpa_cap_evicts_stalled_never_quiet_legit),
	    cmocka_unit_test(test_mpa_cap_refuses_while_judging_never_quiet_legit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
