/*
 * usrsctp glue, the lower half: the process-wide usrsctp stack (its lock,
 * start and stop, timers), socket options of our SCTP sockets and the path
 * status read back, the send of one message and the receive call. The upper half (endpoints,
 * associations, notifications, the sctp_ll API but the data calls) is
 * sctp_usrsctp.c; it calls into this file, never the reverse:
 * what this file learns (a notification read, a failed receive) it returns.
 * Only these two files, sctp_usrsctp_abort.c and sctp_usrsctp_rcvbuf.c
 * include usrsctp.h.
 *
 * Threads: usrsctp is one stack per process (its socket
 * tables, timers and mbuf pools are global and, started with
 * usrsctp_init_nothreads, unlocked). Every call into it, from any file and
 * any thread, holds g_lock (sctp_usrsctp_lock). usrsctp's callbacks (the
 * output function, socket upcalls) run inside such a call, so under the
 * lock and on the calling thread, which may not own the association
 * concerned (one thread's timer call retransmits for every association);
 * sctp_usrsctp_caller() tells them whose event_base that thread runs.
 */
#include "sctp/usrsctp/sctp_usrsctp_int.h"
#include "ddp_test.h"

#include <ddp/sctp.h>

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include <usrsctp.h>

#include <ddp/ddp.h>
#include "cursor.h"

/* ------------------------------------------------------------ the lock */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct event_base *g_caller; /* under g_lock: the holder's base */

void sctp_usrsctp_lock(struct event_base *caller)
{
	pthread_mutex_lock(&g_lock);
	g_caller = caller;
}

void sctp_usrsctp_unlock(void)
{
	g_caller = NULL;
	pthread_mutex_unlock(&g_lock);
}

struct event_base *sctp_usrsctp_caller(void)
{
	return g_caller;
}

/* ------------------------------------------------------------ stack */

static unsigned g_refs;
static struct timespec g_last;
static sctp_usrsctp_output_fn g_output;
static int selftest(void);

enum { PATH_UNTESTED, PATH_GATHER, PATH_COPY };
static int g_path;              /* under g_lock until decided, then fixed */
static atomic_int g_force_copy; /* test hook (sctp_ll_test_force_copy) */

static void debug_printf(const char *fmt, ...)
{
	(void)fmt;
}

static int stack_output(void *addr, void *buf, size_t len, uint8_t tos, uint8_t set_df);

void sctp_usrsctp_stack_get(sctp_usrsctp_output_fn out)
{
	sctp_usrsctp_lock(NULL);
	if (g_refs++ == 0) {
		g_output = out;
		usrsctp_init_nothreads(0, stack_output, debug_printf);
		/* our CRC32c: computed in conn_output, checked on input */
		usrsctp_enable_crc32c_offload();
		usrsctp_sysctl_set_sctp_ecn_enable(0);
		usrsctp_sysctl_set_sctp_max_chunks_on_queue(65536);
		usrsctp_sysctl_set_sctp_delayed_sack_time_default(10);
		usrsctp_sysctl_set_sctp_rto_min_default(100);
		usrsctp_sysctl_set_sctp_rto_max_default(1000);
		usrsctp_sysctl_set_sctp_heartbeat_interval_default(1000);
		/* usrsctp's own limit on one chunk's retransmissions (30)
		 * is off: it ended an association whose peer still answered
		 * while the path MTU probes looked for a black hole, the
		 * chunks cut for the larger size resent at every time-out
		 * (RFC 8899 §4.3). A peer is dead by the association's error
		 * counter (RFC 9260 §8.1) and libddp's dead-peer timer. */
		usrsctp_sysctl_set_sctp_max_retran_chunk(0);
		clock_gettime(CLOCK_MONOTONIC, &g_last);
		/* once per process: does the gather send work with this
		 * usrsctp? (see send_gather) */
		if (g_path == PATH_UNTESTED)
			g_path = selftest() ? PATH_GATHER : PATH_COPY;
	}
	sctp_usrsctp_unlock();
}

void sctp_usrsctp_stack_put(void)
{
	sctp_usrsctp_lock(NULL);
	if (g_refs && --g_refs == 0) {
		for (int i = 0; i < 300; i++) {
			if (usrsctp_finish() == 0)
				break;
			usrsctp_handle_timers(100);
		}
	}
	sctp_usrsctp_unlock();
}

static uint32_t elapsed_ms(void)
{
	struct timespec now;
	uint64_t ms;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (uint64_t)(now.tv_sec - g_last.tv_sec) * 1000 +
	     (uint64_t)((now.tv_nsec - g_last.tv_nsec) / 1000000);
	if (ms == 0)
		return 0;
	g_last = now;
	return ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
}

/* usrsctp's clock is one for the process: whichever endpoint's timer
 * fires advances it by the time since the last advance (by anyone), so
 * several endpoints (threads) ticking never run a timer early. */
void sctp_usrsctp_timers(struct event_base *caller)
{
	uint32_t ms;
	sctp_usrsctp_lock(caller);
	ms = elapsed_ms();
	if (ms)
		usrsctp_handle_timers(ms);
	sctp_usrsctp_unlock();
}

/* ------------------------------------------------------------ options */

static int set_opt(struct event_base *b, struct socket *so, int level, int name, const void *v,
                   socklen_t l)
{
	int rc;
	sctp_usrsctp_lock(b);
	rc = usrsctp_setsockopt(so, level, name, v, l) < 0 ? DDP_ERR_SYS : 0;
	sctp_usrsctp_unlock();
	return rc;
}

/*
 * Path MTU, fixed by us (SPP_PMTUD_DISABLE: usrsctp cannot see ICMP in
 * AF_CONN mode; sctp_udp follows the route, EMSGSIZE and ICMP for it).
 * How usrsctp counts it for an AF_CONN peer (usrsctp 0.9.5
 * sctp_add_remote_addr / SCTP_PEER_ADDR_PARAMS: net->mtu = spp_pathmtu +
 * 12): the SCTP packet, i.e. our UDP payload, is at most spp_pathmtu + 12
 * octets. So spp_pathmtu = largest UDP payload - 12 = link MTU - 40 (IPv4)
 * or - 60 (IPv6). Its fragmentation point (SCTP_MAXSEG, the largest
 * unfragmented message) is payload - 12 - 16 (DATA chunk header) -
 * (payload % 4). For example (test_sctp_mtu checks it): link MTU 1500
 * over IPv4 -> largest datagram 1472 = 1500 - 28, largest message 1444;
 * loopback (65536) -> payload capped at 65507, message 65476.
 */
#define SCTP_CONN_HDR 12 /* counted by usrsctp on top of spp_pathmtu */

int sctp_usrsctp_set_mtu(struct event_base *b, struct socket *so, uint32_t payload)
{
	struct sctp_paddrparams pp;
	struct sockaddr_conn any;
	memset(&pp, 0, sizeof(pp));
	/* the wildcard AF_CONN address: every path of the association
	 * (one-to-one socket), or the socket's default before it has one
	 * (with no address at all usrsctp refuses it on an association:
	 * EAFNOSUPPORT) */
	memset(&any, 0, sizeof(any));
	any.sconn_family = AF_CONN;
	memcpy(&pp.spp_address, &any, sizeof(any));
	pp.spp_assoc_id = SCTP_FUTURE_ASSOC;
	pp.spp_flags = SPP_PMTUD_DISABLE;
	pp.spp_pathmtu = payload - SCTP_CONN_HDR;
	return set_opt(b, so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp));
}

/* Socket options shared by connecting and listening sockets. */
int sctp_usrsctp_setup_socket(sctp_ll_ep *ep, struct socket *so, uint32_t payload)
{
	const sctp_ll_config *c = &ep->cfg;
	static const uint16_t evs[] = {
	    SCTP_ASSOC_CHANGE,     SCTP_ADAPTATION_INDICATION, SCTP_SHUTDOWN_EVENT,
	    SCTP_SENDER_DRY_EVENT, SCTP_SEND_FAILED_EVENT,
	};
	struct sctp_initmsg im;
	struct sctp_setadaptation ad;
	struct sctp_paddrparams pp;
	struct sctp_rtoinfo rto;
	struct sctp_assocparams ap;
	struct sctp_assoc_value mb;
	const int one = 1;
	struct event_base *b = ep->base;
	int sb, rb, rc = 0;

	sctp_usrsctp_lock(b);
	usrsctp_set_non_blocking(so, 1);
	sctp_usrsctp_unlock();
	/* RFC 5043 §9: SCTP packets fit the IP path (also the stock baseline:
	 * the same packets on the wire, only usrsctp's tuning differs) */
	rc |= sctp_usrsctp_set_mtu(b, so, payload);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct sctp_event e;
		memset(&e, 0, sizeof(e));
		e.se_assoc_id = SCTP_FUTURE_ASSOC;
		e.se_on = 1;
		e.se_type = evs[i];
		rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_EVENT, &e, sizeof(e));
	}
	rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_RECVRCVINFO, &one, sizeof(one));
	rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_RECVNXTINFO, &one, sizeof(one));
	/* RFC 5043 §5.1: equal inbound and outbound stream counts */
	memset(&im, 0, sizeof(im));
	im.sinit_num_ostreams = c->nstreams;
	im.sinit_max_instreams = c->nstreams;
	rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof(im));
	if (c->adaptation) {
		/* RFC 5043 §11.1: Adaptation Layer Indication in INIT/INIT-ACK
		 * (host order here; the stack converts) */
		ad.ssb_adaptation_ind = c->adaptation;
		rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_ADAPTATION_LAYER, &ad, sizeof(ad));
	}
	/* No ASCONF (RFC 5061): here every remote UDP endpoint that an
	 * association uses is an AF_CONN address registered with usrsctp
	 * (sctp_usrsctp.c), never an association's own, so there is nothing
	 * to reconfigure; but each
	 * time one goes, usrsctp queues an ASCONF deleting it on every
	 * association that negotiated the extension (sctp_asconf.c's address
	 * iterator), and spoofed INITs make and expire peers by the hundred a
	 * second: chunks and work for nothing. */
	mb.assoc_id = SCTP_FUTURE_ASSOC;
	mb.assoc_value = 0;
	rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_ASCONF_SUPPORTED, &mb, sizeof(mb));
#ifdef SCTP_PLUGGABLE_CC
	/* the congestion control module of every association of this socket
	 * (a listener's accepted ones included); the packaged usrsctp's is
	 * set when the socket is made (sctp_usrsctp.c, open_socket) */
	mb.assoc_id = SCTP_FUTURE_ASSOC;
	mb.assoc_value = (uint32_t)sctp_usrsctp_cc_module(c->cc);
	rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_PLUGGABLE_CC, &mb, sizeof(mb));
#endif
	if (ep->stock) {
		/* usrsctp as it comes (ddp_test.h, sctp_ll_ep_new_stock): undo
		 * the global sysctls (ours) per association, set nothing else */
		struct sctp_sack_info sk;
		memset(&sk, 0, sizeof(sk));
		sk.sack_assoc_id = SCTP_FUTURE_ASSOC;
		sk.sack_delay = 200;
		sk.sack_freq = 2;
		rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_DELAYED_SACK, &sk, sizeof(sk));
		memset(&rto, 0, sizeof(rto));
		rto.srto_assoc_id = SCTP_FUTURE_ASSOC;
		rto.srto_initial = 3000;
		rto.srto_min = 1000;
		rto.srto_max = 60000;
		rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof(rto));
		return rc ? DDP_ERR_SYS : 0;
	}
	/* RFC 5043 §9: no SCTP fragmentation of DDP segments */
	if (c->unfragmented)
		rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_DISABLE_FRAGMENTS, &one, sizeof(one));
	rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_NODELAY, &one, sizeof(one));
	/* No max burst: usrsctp's (4 packets, cwnd-based by default) cuts
	 * the congestion window to flight + 4 packets whenever a message
	 * starts after a pause, so every DDP message of more than 4 packets
	 * sent at a moderate rate waits extra round trips in slow start
	 * (docs/performance.md, "Message latency across streams") */
	mb.assoc_id = SCTP_FUTURE_ASSOC;
	mb.assoc_value = 0;
	rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_MAX_BURST, &mb, sizeof(mb));
	sb = (int)c->sndbuf;
	rb = (int)c->rcvbuf;
	rc |= set_opt(b, so, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
	rc |= set_opt(b, so, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	/* heartbeat for liveness */
	memset(&pp, 0, sizeof(pp));
	pp.spp_assoc_id = SCTP_FUTURE_ASSOC;
	pp.spp_flags = SPP_HB_ENABLE;
	pp.spp_hbinterval = c->hb_interval_ms;
	pp.spp_pathmaxrxt = c->path_max_retrans;
	rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp));
	memset(&rto, 0, sizeof(rto));
	rto.srto_assoc_id = SCTP_FUTURE_ASSOC;
	rto.srto_initial = c->rto_initial_ms;
	rto.srto_min = c->rto_min_ms;
	rto.srto_max = c->rto_max_ms;
	rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof(rto));
	memset(&ap, 0, sizeof(ap));
	ap.sasoc_assoc_id = SCTP_FUTURE_ASSOC;
	/* RFC 4960 §8.1: consecutive unanswered retransmissions and
	 * heartbeats before the association is declared dead */
	ap.sasoc_asocmaxrxt = c->assoc_max_retrans;
	rc |= set_opt(b, so, IPPROTO_SCTP, SCTP_ASSOCINFO, &ap, sizeof(ap));
	return rc ? DDP_ERR_SYS : 0;
}

static int send_errno(struct sctp_ll_assoc *a, int e)
{
	switch (e) {
	case EAGAIN:
#if EWOULDBLOCK != EAGAIN
	case EWOULDBLOCK:
#endif
	case ENOBUFS:
		a->want_write = 1;
		return DDP_ERR_AGAIN;
	case EMSGSIZE:
		return DDP_ERR_TOOBIG;
	case ENOTCONN:
	case EPIPE:
	case ESHUTDOWN:
		return DDP_ERR_CLOSED;
	default:
		return DDP_ERR_LLP;
	}
}

/* ------------------------------------------------------------ send */

/*
 * Gather send. usrsctp_sendv() takes one buffer; it is a thin
 * wrapper that puts that buffer into a one-entry `struct uio` and calls
 * sctp_lower_sosend(), which libusrsctp exports but usrsctp.h does not
 * declare. Calling it with several iovecs makes usrsctp copy the DDP-SSN,
 * the DDP header and the ULP's payload straight into its own mbufs as ONE
 * message: no staging copy of ours. (Not SCTP_EXPLICIT_EOR with two sendv
 * calls: that splits messages into fragments on the wire, which RFC 5043
 * §9 forbids.) The structs below copy usrsctp's private layouts
 * (`struct uio`, user_socketvar.h; `struct sctp_sndrcvinfo`,
 * netinet/sctp_uio.h) of usrsctp 0.9.5. Guarded twice: configure defines
 * DDP_USRSCTP_LOWER_SOSEND only for a usrsctp package version known to
 * have these layouts and a library that links the symbol; and at start-up
 * selftest() sends a known three-piece gather through it over a loopback
 * association pair and checks the message that arrives. Otherwise every
 * multi-piece message is copied into one buffer and sent with the public
 * usrsctp_sendv() (counted: sctp_ll_io_stats.tx_copied).
 */
#if DDP_USRSCTP_LOWER_SOSEND
struct usrsctp_uio {
	struct iovec *uio_iov;
	int uio_iovcnt;
	off_t uio_offset;
	ssize_t uio_resid;
	int uio_segflg; /* enum uio_seg: UIO_USERSPACE = 0 */
	int uio_rw;     /* enum uio_rw: UIO_WRITE = 1 */
};
struct usrsctp_sndrcvinfo {
	uint16_t sinfo_stream;
	uint16_t sinfo_ssn;
	uint16_t sinfo_flags;
	uint32_t sinfo_ppid;
	uint32_t sinfo_context;
	uint32_t sinfo_timetolive;
	uint32_t sinfo_tsn;
	uint32_t sinfo_cumtsn;
	sctp_assoc_t sinfo_assoc_id;
	uint16_t sinfo_keynumber;
	uint16_t sinfo_keynumber_valid;
	uint8_t reserve_pad[92];
};
_Static_assert(sizeof(struct usrsctp_sndrcvinfo) == 128, "usrsctp sctp_sndrcvinfo layout");
int sctp_lower_sosend(struct socket *so, struct sockaddr *addr, struct usrsctp_uio *uio, void *top,
                      void *control, int flags, struct usrsctp_sndrcvinfo *srcv);

/* Under g_lock. Returns 0 or an errno value. */
static int send_gather(struct socket *so, uint16_t sid, uint32_t ppid, const struct iovec *iov,
                       int iovcnt, size_t len)
{
	struct usrsctp_sndrcvinfo si;
	struct usrsctp_uio uio;
	memset(&si, 0, sizeof(si));
	si.sinfo_stream = sid;
	/* RFC 5043 §5.1: U=1 on every chunk */
	si.sinfo_flags = SCTP_UNORDERED;
	si.sinfo_ppid = htonl(ppid); /* PPID passes through untouched */
	memset(&uio, 0, sizeof(uio));
	uio.uio_iov = (struct iovec *)iov;
	uio.uio_iovcnt = iovcnt;
	uio.uio_resid = (ssize_t)len;
	uio.uio_segflg = 0;
	uio.uio_rw = 1;
	return sctp_lower_sosend(so, NULL, &uio, NULL, NULL, 0, &si);
}

/* --- start-up self-test of send_gather, on a loopback pair inside
 * usrsctp: both sockets use the address st_addr, whose packets
 * stack_output queues here and st_pump feeds back in (never from inside
 * the output callback: usrsctp holds its own locks there). */
#define ST_PORT 7
static uint8_t st_addr;
struct st_pkt {
	struct st_pkt *next;
	size_t len;
	uint8_t data[];
};
static struct st_pkt *st_q, **st_tail = &st_q;

static void st_output(const void *buf, size_t len)
{
	struct st_pkt *k = malloc(sizeof(*k) + len);
	if (!k)
		return;
	k->next = NULL;
	k->len = len;
	memcpy(k->data, buf, len);
	*st_tail = k;
	st_tail = &k->next;
}

static void st_pump(int deliver)
{
	for (int i = 0; i < 256 && st_q; i++) {
		struct st_pkt *k = st_q;
		st_q = k->next;
		if (!st_q)
			st_tail = &st_q;
		if (deliver)
			usrsctp_conninput(&st_addr, k->data, k->len, 0);
		free(k);
	}
}

static struct socket *st_socket(uint16_t port)
{
	struct sockaddr_conn sc;
	struct socket *so = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	if (!so)
		return NULL;
	usrsctp_set_non_blocking(so, 1);
	memset(&sc, 0, sizeof(sc));
	sc.sconn_family = AF_CONN;
	sc.sconn_port = htons(port);
	sc.sconn_addr = &st_addr;
	if (usrsctp_bind(so, (struct sockaddr *)&sc, sizeof(sc)) < 0) {
		usrsctp_close(so);
		return NULL;
	}
	return so;
}

static void st_close(struct socket *so)
{
	struct linger l = {1, 0}; /* ABORT, nothing lingers */
	if (!so)
		return;
	usrsctp_setsockopt(so, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	usrsctp_close(so);
}

/* Under g_lock, before any socket of ours exists. 1: the gather arrived
 * as one intact message with its stream, PPID and U flag. */
static int st_run(void)
{
	static uint8_t piece[1500], got[2048];
	static const uint8_t a[3] = {'D', 'D', 'P'}, z[5] = "-end";
	struct iovec iov[3] = {
	    {(void *)a, sizeof(a)}, {piece, sizeof(piece)}, {(void *)z, sizeof(z)}};
	const size_t total = sizeof(a) + sizeof(piece) + sizeof(z);
	struct socket *ls, *cs = NULL, *as = NULL;
	struct sockaddr_conn sc;
	struct sctp_rcvinfo ri;
	socklen_t il = sizeof(ri);
	unsigned it = 0;
	const int one = 1;
	int ok = 0, fl = 0;
	ssize_t n;

	for (size_t i = 0; i < sizeof(piece); i++)
		piece[i] = (uint8_t)(i * 7 + 3);
	ls = st_socket(ST_PORT);
	cs = st_socket(0);
	if (!ls || !cs || usrsctp_listen(ls, 1) < 0 ||
	    usrsctp_setsockopt(ls, IPPROTO_SCTP, SCTP_RECVRCVINFO, &one, sizeof(one)) < 0)
		goto out;
	memset(&sc, 0, sizeof(sc));
	sc.sconn_family = AF_CONN;
	sc.sconn_port = htons(ST_PORT);
	sc.sconn_addr = &st_addr;
	if (usrsctp_connect(cs, (struct sockaddr *)&sc, sizeof(sc)) < 0 && errno != EINPROGRESS)
		goto out;
	st_pump(1); /* INIT .. COOKIE-ACK */
	as = usrsctp_accept(ls, NULL, NULL);
	if (!as)
		goto out;
	usrsctp_set_non_blocking(as, 1);
	if (send_gather(cs, 1, 0x44445031, iov, 3, total) != 0)
		goto out;
	st_pump(1);
	memset(&ri, 0, sizeof(ri));
	memset(got, 0, sizeof(got));
	n = usrsctp_recvv(as, got, sizeof(got), NULL, NULL, &ri, &il, &it, &fl);
	ok = n == (ssize_t)total && (fl & MSG_EOR) && !(fl & MSG_NOTIFICATION) &&
	     it == SCTP_RECVV_RCVINFO && ri.rcv_sid == 1 && ntohl(ri.rcv_ppid) == 0x44445031 &&
	     (ri.rcv_flags & SCTP_UNORDERED) && memcmp(got, a, sizeof(a)) == 0 &&
	     memcmp(got + sizeof(a), piece, sizeof(piece)) == 0 &&
	     memcmp(got + sizeof(a) + sizeof(piece), z, sizeof(z)) == 0;
out:
	st_close(as);
	st_close(cs);
	st_close(ls);
	st_pump(1);
	st_pump(0);
	return ok;
}

static int selftest(void)
{
	int ok;
	usrsctp_register_address(&st_addr);
	ok = st_run();
	usrsctp_deregister_address(&st_addr);
	return ok;
}

static int stack_output(void *addr, void *buf, size_t len, uint8_t tos, uint8_t set_df)
{
	if (addr == &st_addr) {
		st_output(buf, len);
		return 0;
	}
	return g_output ? g_output(addr, buf, len, tos, set_df) : 0;
}
#else
static int selftest(void)
{
	return 0; /* configure found no usrsctp known to take the gather */
}

static int stack_output(void *addr, void *buf, size_t len, uint8_t tos, uint8_t set_df)
{
	return g_output ? g_output(addr, buf, len, tos, set_df) : 0;
}
#endif

int sctp_ll_send_gathers(void)
{
	int p;
	sctp_usrsctp_lock(NULL);
	p = g_path;
	sctp_usrsctp_unlock();
	return p == PATH_GATHER && !atomic_load(&g_force_copy);
}

void sctp_ll_test_force_copy(int on)
{
	atomic_store(&g_force_copy, on != 0);
}

/* The public path: one buffer, usrsctp_sendv. Under g_lock. Returns 0 or
 * an errno value. */
static int send_plain(struct socket *so, uint16_t sid, uint32_t ppid, const void *buf, size_t len)
{
	struct sctp_sndinfo snd;
	memset(&snd, 0, sizeof(snd));
	snd.snd_sid = sid;
	snd.snd_flags = SCTP_UNORDERED; /* RFC 5043 §5.1 */
	snd.snd_ppid = htonl(ppid);
	if (usrsctp_sendv(so, buf, len, NULL, 0, &snd, sizeof(snd), SCTP_SENDV_SNDINFO, 0) >= 0)
		return 0;
	return errno ? errno : EIO;
}

/* Several pieces without the gather: one staging buffer per endpoint,
 * the copy counted. */
static const void *stage(struct sctp_ll_assoc *a, const struct iovec *iov, int iovcnt, size_t len)
{
	sctp_ll_ep *ep = a->ep;
	uint8_t *d;
	if (len > ep->stage_cap) {
		uint8_t *n = realloc(ep->stage, len);
		if (!n)
			return NULL;
		ep->stage = n;
		ep->stage_cap = len;
	}
	d = ep->stage;
	for (int i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len)
			memcpy(d, iov[i].iov_base, iov[i].iov_len);
		d += iov[i].iov_len;
	}
	ep->tx_copied += len;
	return ep->stage;
}

/* Returns 0 or an errno value. */
static int send_iov(struct sctp_ll_assoc *a, uint16_t sid, uint32_t ppid, const struct iovec *iov,
                    int iovcnt, size_t len)
{
	const void *buf = iovcnt == 1 ? iov[0].iov_base : NULL;
	int e;
#if DDP_USRSCTP_LOWER_SOSEND
	if (iovcnt > 1 && g_path == PATH_GATHER && !atomic_load(&g_force_copy)) {
		sctp_usrsctp_lock(a->ep->base);
		e = send_gather(a->so, sid, ppid, iov, iovcnt, len);
		sctp_usrsctp_unlock();
		return e;
	}
#endif
	if (iovcnt > 1 && !(buf = stage(a, iov, iovcnt, len)))
		return ENOBUFS;
	sctp_usrsctp_lock(a->ep->base);
	e = send_plain(a->so, sid, ppid, buf, len);
	sctp_usrsctp_unlock();
	return e;
}

int sctp_ll_sendv(sctp_ll_assoc *a, uint16_t sid, uint32_t ppid, const struct iovec *iov,
                  int iovcnt)
{
	size_t len = 0;
	int e;
	if (!a || iovcnt < 1 || !iov)
		return DDP_ERR_INVAL;
	for (int i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	if (a->state != A_UP || !a->so)
		return DDP_ERR_CLOSED;
	if (a->max_msg_up && len > a->max_msg_up)
		return DDP_ERR_TOOBIG;
	if (sid >= a->nstreams)
		return DDP_ERR_INVAL;
	if (len > a->max_msg && a->ep->cfg.unfragmented) {
		/* cut for a path MTU that has since dropped: only SCTP
		 * fragmentation gets it across now (RFC 4960 §6.9) */
		const int zero = 0, one = 1;
		set_opt(a->ep->base, a->so, IPPROTO_SCTP, SCTP_DISABLE_FRAGMENTS, &zero,
		        sizeof(zero));
		e = send_iov(a, sid, ppid, iov, iovcnt, len);
		set_opt(a->ep->base, a->so, IPPROTO_SCTP, SCTP_DISABLE_FRAGMENTS, &one,
		        sizeof(one));
		return e == 0 ? 0 : send_errno(a, e);
	}
	e = send_iov(a, sid, ppid, iov, iovcnt, len);
	return e == 0 ? 0 : send_errno(a, e);
}

int sctp_ll_send(sctp_ll_assoc *a, uint16_t sid, uint32_t ppid, const void *buf, size_t len)
{
	if (!a || (!buf && len))
		return DDP_ERR_INVAL;
	struct iovec v = {(void *)buf, len};
	return sctp_ll_sendv(a, sid, ppid, &v, 1);
}

void sctp_ll_want_writable(sctp_ll_assoc *a)
{
	if (a)
		a->want_write = 1;
}

void sctp_ll_later(sctp_ll_assoc *a)
{
	if (!a || a->pend_later)
		return;
	a->pend_later = 1;
	event_active(a->work, EV_TIMEOUT, 0);
}

/* ------------------------------------------------------------ receive */

/* One usrsctp_recvv; under g_lock. */
static int recv_locked(struct sctp_ll_assoc *a, void *buf, size_t len, sctp_ll_rinfo *ri, size_t *n,
                       int *eor)
{
	struct sctp_recvv_rn rn;
	socklen_t il = sizeof(rn);
	unsigned it = 0;
	int fl = 0;
	ssize_t r;

	memset(&rn, 0, sizeof(rn));
	r = usrsctp_recvv(a->so, buf, len, NULL, NULL, &rn, &il, &it, &fl);
	if (r < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? SCTP_RECV_AGAIN : SCTP_RECV_FAILED;
	*n = (size_t)r;
	*eor = (fl & MSG_EOR) != 0;
	if (fl & MSG_NOTIFICATION)
		return SCTP_RECV_NOTIFICATION;
	a->rx_octets += (uint64_t)r;
	memset(ri, 0, sizeof(*ri));
	if (it == SCTP_RECVV_RCVINFO || it == SCTP_RECVV_RN) {
		ri->sid = rn.recvv_rcvinfo.rcv_sid;
		ri->ppid = ntohl(rn.recvv_rcvinfo.rcv_ppid);
		ri->unordered = (rn.recvv_rcvinfo.rcv_flags & SCTP_UNORDERED) != 0;
	}
	if (it == SCTP_RECVV_RN || it == SCTP_RECVV_NXTINFO) {
		struct sctp_nxtinfo *nx =
		    it == SCTP_RECVV_RN ? &rn.recvv_nxtinfo : (struct sctp_nxtinfo *)&rn;
		if ((nx->nxt_flags & SCTP_COMPLETE) && !(nx->nxt_flags & SCTP_NOTIFICATION)) {
			ri->next_valid = 1;
			ri->next_sid = nx->nxt_sid;
			ri->next_ppid = ntohl(nx->nxt_ppid);
			ri->next_len = nx->nxt_length;
		}
	}
	ri->eor = *eor;
	return SCTP_RECV_DATA;
}

int sctp_usrsctp_recv_once(struct sctp_ll_assoc *a, void *buf, size_t len, sctp_ll_rinfo *ri,
                           size_t *n, int *eor)
{
	int k;
	sctp_usrsctp_lock(a->ep->base);
	k = recv_locked(a, buf, len, ri, n, eor);
	sctp_usrsctp_unlock();
	return k;
}

/* Several messages in one hold of the lock (each usrsctp_recvv takes
 * usrsctp's socket and association locks anyway; ours once a batch). No
 * other thread runs in usrsctp meanwhile (every call holds g_lock), so
 * what SCTP_RECVNXTINFO says about the next message holds when it is read;
 * one octet of room more than announced makes a longer message come back
 * without MSG_EOR, which ends the batch like anything unexpected. */
int sctp_usrsctp_recv_batch(struct sctp_ll_assoc *a, uint8_t *buf, size_t cap, size_t first,
                            size_t max_len, struct sctp_ll_rxmsg *m, unsigned nmax, unsigned *got,
                            sctp_ll_rinfo *next)
{
	size_t used = 0, n = 0;
	unsigned k = 0;
	int eor = 0, rc;
	sctp_ll_rinfo ri;

	memset(next, 0, sizeof(*next));
	sctp_usrsctp_lock(a->ep->base);
	rc = recv_locked(a, buf, first < cap ? first : cap, &ri, &n, &eor);
	while (rc == SCTP_RECV_DATA || (k && rc == SCTP_RECV_NOTIFICATION)) {
		m[k] = (struct sctp_ll_rxmsg){.off = (uint32_t)used,
		                              .len = (uint32_t)n,
		                              .eor = (uint8_t)eor,
		                              .note = rc == SCTP_RECV_NOTIFICATION};
		used += n;
		if (m[k++].note)
			break;
		m[k - 1].sid = ri.sid;
		m[k - 1].ppid = ri.ppid;
		m[k - 1].unordered = (uint8_t)ri.unordered;
		*next = ri;
		if (!eor || k == nmax || !ri.next_valid || ri.next_len > max_len ||
		    ri.next_len >= cap - used)
			break;
		rc = recv_locked(a, buf + used, cap - used, &ri, &n, &eor);
	}
	sctp_usrsctp_unlock();
	*got = k;
	if (k)
		return SCTP_RECV_DATA;
	m[0] = (struct sctp_ll_rxmsg){.len = (uint32_t)n, .eor = (uint8_t)eor};
	return rc; /* a notification's first n octets are at buf */
}
