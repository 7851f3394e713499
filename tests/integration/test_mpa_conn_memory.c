/* Memory of the responder side per MPA connection, measured as the RSS
 * this process gains over NCONN connections (kernel socket memory is not
 * in it): idle after the start-up, quiet again after a burst of small
 * FPDUs (the receive ring is given back), and with a peer that never reads
 * while we send, over an Ethernet-sized MSS (the MPA queue stops at
 * MPA_TX_FPDU_MAX FPDUs, the core at session.max_tx_queued messages).
 * Clients are plain sockets speaking MPA by hand (tests/support). Under
 * ASan or valgrind the numbers are printed, not asserted. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/sock_diag.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include "ddpwire.h"
#include "mpa_craft.h"
#include "net_helpers.h"
#include "proc_stats.h"

#define NCONN 256
#define NPOST 8
#define BURST 160 /* 1 KiB Sends per client: 160 KiB, past the 128 KiB ring */
#define MSG 1024

static struct event_base *base;
static ddp_ctx *ctx;
static ddp_mpa_conn *conns[NCONN];
static int nconns, nup;
static long delivered, send_bad;
static uint8_t rxbuf[MSG];		/* every posted buffer (contents unused) */
static uint8_t txbuf[16384];

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	if (d->status == 0)
		delivered++;
	ddp_post_recv(s, 0, 0, rxbuf, sizeof(rxbuf), NULL);
}

static void on_send_done(ddp_session *s, uint32_t st, void *c, int status, void *user)
{
	if (status != 0)
		send_bad++;
}

static const ddp_callbacks cbs = {.deliver = on_deliver, .send_done = on_send_done};

static void on_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	if (nconns < NCONN)
		conns[nconns++] = c;
	for (int i = 0; i < NPOST; i++)
		ddp_post_recv(ddp_mpa_session(c), 0, 0, rxbuf, sizeof(rxbuf), NULL);
	ddp_mpa_accept(c, NULL, 0);
}

static void on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	if (ev == DDP_MPA_CONNECTED)
		nup++;
}

/* A client socket whose MSS is that of an Ethernet path (1448): our
 * FPDUs toward it are MTU-sized, as on a real network. */
static int client_connect(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), mss = 1448;
	struct sockaddr_in sa = net_lo(port);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Kernel memory of the server's accepted sockets (local port = port):
 * queued for sending plus received and unread, octets per connection
 * (SO_MEMINFO; 0 when the kernel has none). Printed, not asserted: it
 * is the kernel's, bounded by its tcp_wmem / tcp_rmem. */
static long kernel_per_conn(int port)
{
	long sum = 0;
	for (int fd = 3; fd < 4096; fd++) {
		struct sockaddr_in a;
		socklen_t al = sizeof(a);
		uint32_t mi[SK_MEMINFO_VARS];
		socklen_t ml = sizeof(mi);
		if (getsockname(fd, (struct sockaddr *)&a, &al) != 0 || a.sin_family != AF_INET ||
		    ntohs(a.sin_port) != port)
			continue;
		struct sockaddr_in p;
		socklen_t pl = sizeof(p);
		if (getpeername(fd, (struct sockaddr *)&p, &pl) != 0) /* the listener */
			continue;
		if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &ml) == 0)
			sum += (long)mi[SK_MEMINFO_WMEM_QUEUED] + (long)mi[SK_MEMINFO_RMEM_ALLOC];
	}
	return sum / NCONN;
}

static long per_conn(long rss0, long rss)
{
	return (rss - rss0) * 1024 / NCONN;
}

static void memory_per_connection(unsigned sndbuf)
{
	nconns = nup = 0;
	delivered = send_bad = 0;
	alarm(60);
	base = event_base_new();
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	struct sockaddr_in sa = net_lo(0);
	ddp_mpa_listener *l;
	ddp_mpa_config mc;
	memset(&mc, 0, sizeof(mc));
	mc.revision = 1;
	/* what the DDP core holds for a peer that does not read: a server
	 * facing untrusted peers bounds it (each queued message costs ~130
	 * octets; the default, 4,096 messages, would be ~520 KiB) */
	mc.session.max_tx_queued = 256;
	mc.tcp_sndbuf = sndbuf;
	assert_int_equal(ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &cbs,
	                                on_accept, on_event, NULL, &l),
	                 0);
	int port = ddp_mpa_listener_port(l);
	static int fd[NCONN];
	uint8_t req[64];
	size_t rl = mpa_craft_request(req, sizeof(req), 1, 1);
	net_run_for(base, 0.05);
	long rss0 = proc_rss_kib();
	for (int i = 0; i < NCONN; i++) {
		fd[i] = client_connect(port);
		assert_true(fd[i] >= 0);
		assert_int_equal(send(fd[i], req, rl, 0), (ssize_t)rl);
		if (i % 32 == 31)
			net_run_for(base, 0.01);
	}
	for (int i = 0; i < 500 && nup < NCONN; i++)
		net_run_for(base, 0.01);
	assert_int_equal(nup, NCONN);
	for (int i = 0; i < NCONN; i++) { /* the Replies */
		uint8_t rep[20];
		assert_int_equal(recv(fd[i], rep, sizeof(rep), 0), 20);
		assert_memory_equal(rep, "MPA ID Rep Frame", 16);
	}
	net_run_for(base, 0.1);
	long rss_idle = proc_rss_kib(), k_idle = kernel_per_conn(port);

	/* a burst of small Sends from every client */
	static uint8_t seg[MSG + 64], fpdu[MSG + 128], stream[BURST * (MSG + 128)];
	memset(txbuf, 'x', sizeof(txbuf));
	for (int i = 0; i < NCONN; i++) {
		size_t n = 0;
		for (uint32_t m = 1; m <= BURST; m++) {
			size_t sl = tw_untagged(seg, 1, 1, 0, 0, m, 0, txbuf, MSG);
			size_t fl = mpa_craft_fpdu(fpdu, sizeof(fpdu), seg, sl, 1);
			memcpy(stream + n, fpdu, fl);
			n += fl;
		}
		for (size_t off = 0; off < n;) {
			ssize_t w = send(fd[i], stream + off, n - off, MSG_DONTWAIT);
			if (w > 0)
				off += (size_t)w;
			else
				net_run_for(base, 0.002);
		}
		net_run_for(base, 0.002);
	}
	for (int i = 0; i < 1000 && delivered < (long)NCONN * BURST; i++)
		net_run_for(base, 0.01);
	assert_int_equal(delivered, (long)NCONN * BURST);
	long rss_burst = proc_rss_kib();
	net_run_for(base, 2.5); /* quiet */
	long rss_quiet = proc_rss_kib();

	/* zero window: we send, the clients never read */
	long msgs = 0;
	for (int round = 0; round < 40; round++) {
		for (int i = 0; i < NCONN; i++) {
			struct iovec v = {txbuf, sizeof(txbuf)};
			while (ddp_send_untagged(ddp_mpa_session(conns[i]), 0, 0, 0, &v, 1, NULL) == 0)
				msgs++;
		}
		net_run_for(base, 0.02);
	}
	long rss_zw = proc_rss_kib(), k_zw = kernel_per_conn(port);
	print_message("kernel memory of our sockets per connection (tcp_sndbuf %u): idle %ld, peer "
	              "not reading %ld octets\n",
	              sndbuf, k_idle, k_zw);
	if (sndbuf)
		assert_true(k_zw <= 3 * (long)sndbuf); /* doubled, plus what one write may overshoot */
	print_message("MPA responder RSS per connection (%d connections): idle %ld, after a "
	              "160 KiB burst of 1 KiB Sends %ld, quiet 2.5 s later %ld, peer not "
	              "reading (%ld x 16 KiB sends queued) %ld octets\n",
	              NCONN, per_conn(rss0, rss_idle), per_conn(rss0, rss_burst),
	              per_conn(rss0, rss_quiet), msgs, per_conn(rss0, rss_zw));
	assert_int_equal(send_bad, 0);
	if (proc_rss_meaningful()) {
		/* before: idle 13.9 KiB, quiet after the burst 88.7 KiB (the
		 * ring stayed), not reading ~420 KiB (727 FPDU blocks of 512
		 * octets in the MPA queue: 1 MiB of 1.4 KiB FPDUs) */
		assert_true(per_conn(rss0, rss_idle) < 16 * 1024);
		assert_true(per_conn(rss0, rss_quiet) < 16 * 1024);
		assert_true(per_conn(rss0, rss_zw) < 128 * 1024);
	}
	for (int i = 0; i < NCONN; i++) {
		ddp_mpa_conn_free(conns[i]);
		close(fd[i]);
	}
	ddp_mpa_listener_free(l);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
	alarm(0);
}

static void test_mpa_memory_per_connection_is_bounded(void **st)
{
	memory_per_connection(0);
}

/* ddp_mpa_config.tcp_sndbuf bounds what the kernel holds for a peer
 * that does not read (autotuned: ~600 KiB over loopback) */
static void test_mpa_tcp_sndbuf_bounds_kernel_memory(void **st)
{
	memory_per_connection(65536);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mpa_memory_per_connection_is_bounded),
	    cmocka_unit_test(test_mpa_tcp_sndbuf_bounds_kernel_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
