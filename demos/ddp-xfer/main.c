/*
 * ddp-xfer — copy one file over N DDP streams with tagged writes.
 *
 *   ddp-xfer recv --llp {mpa,sctp} --listen ADDR:PORT [--out FILE]
 *   ddp-xfer send --llp {mpa,sctp} --connect ADDR:PORT --streams N FILE
 *   common: [--chunk OCTETS] [--depth N] [--timeout SECONDS]
 *
 * Both ends print "sha256 <hex> bytes <n>" on stdout when the transfer is
 * complete and verified (the receiver hashes what it got, in file order;
 * the sender what it read). Progress goes to stderr; any failure ends the
 * program with exit status 1 and ONE line "ddp-xfer: <reason>" on stderr.
 *
 * ---------------------------------------------------------------- protocol
 * Transport. MPA: N TCP connections, one DDP stream (index 0) each. SCTP:
 * one association, DDP stream i = SCTP stream i, one DDP Stream Session
 * per stream. The sender opens stream i with an 18-octet hello as private
 * data (MPA Request / SCTP Initiate):
 *     magic "DXF1" (4) | transfer id (8) | index i (2) | N (2) | credits (2)
 * The transfer id is random; the receiver takes the first hello's id and N
 * and accepts only hellos with that id, N and an unused index (others are
 * rejected with a reason as private data). That is how the receiver knows
 * which TCP connections belong to one transfer.
 *
 * Messages: untagged, QN 0, RsvdULP 0, big-endian fields (proto.c):
 *     ADVERT  R->S  type 1 | buffer id (4) | STag (4) | TO (8) | length (4)
 *     DONE    S->R  type 2 | buffer id (4) | file offset (8) | length (4)
 *     END     S->R  type 3 | file size (8) | DONEs sent on this stream (4)
 *     RESULT  R->S  type 4 | octets received (8) | SHA-256 (32)
 *     ABORT   R->S  type 5 | reason (1) | text length (1) | text (0..60)
 * Per stream the receiver registers `depth` chunk buffers (one STag each,
 * bound to that stream) and sends one ADVERT per buffer. A sender stream
 * holding an ADVERT takes the next file chunk (offsets are handed out in
 * increasing order across all streams), writes it with ONE tagged message
 * (ddp_send_tagged to STag/TO) and then sends DONE on the same stream. DDP
 * delivers in order per stream, so when DONE is delivered the write was
 * placed; the receiver checks that exactly one tagged message of DONE's
 * length landed in that buffer, removes remote write access from the STag,
 * hashes and writes chunks in file order (a chunk ahead of the frontier
 * stays in its buffer until the gap is filled: bounded by N * depth
 * buffers) and advertises a buffer again when its chunk is consumed.
 * When every offset is handed out the sender sends END on every stream.
 * When all streams sent END and every octet up to the size arrived, the
 * receiver sends RESULT on every stream; the sender compares the hash,
 * prints its line and both ends close (MPA: orderly TCP close; SCTP: the
 * sender SHUTDOWNs the association).
 * A receiver that cannot go on (its disk is full, a write fails) sends
 * ABORT instead of RESULT on every stream: reason 1 disk full, 2 write
 * error, 3 other, and a printable ASCII text (strerror's), then closes in
 * order; the sender prints "the receiver stopped the transfer: <reason>:
 * <text>". --out FILE is written as FILE.partial and renamed to FILE when
 * every octet arrived; a failed transfer removes FILE.partial.
 *
 * Credits (no posted untagged buffer can be overrun): the sender posts
 * `credits` (64) 64-octet buffers per stream before it opens the stream and
 * re-posts each one as soon as its message is delivered. The receiver
 * keeps at most depth' = min(depth, credits - 1) ADVERTs without a DONE,
 * plus one RESULT at the very end, so at most credits messages are ever
 * queued for the sender. The sender sends one DONE per ADVERT it used and
 * one END, so the receiver posts depth' + 2 buffers per stream, again
 * before it accepts the stream, and re-posts them on delivery.
 * ------------------------------------------------------------------------
 */
#include <ddp/ddp.h>
#include <event2/event.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "xfer.h"

struct xf_main xf;

static const struct xf_net *net;
static struct event *tick_ev, *close_ev;
static int tty, line_open;
#define XF_TICK_MS 250 /* progress and --timeout check */
static unsigned ticks;    /* of on_tick */

double xf_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void xf_heard(void)
{
	xf.last_heard = xf_now();
}

static void end_line(void)
{
	if (line_open)
		fputc('\n', stderr);
	line_open = 0;
}

static void vfail(int linger, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void vfail(int linger, const char *fmt, va_list ap)
{
	if (xf.failed)
		return;
	xf.failed = 1;
	end_line();
	char buf[512];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* one line, whatever the reason text holds */
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	fprintf(stderr, "ddp-xfer: %s\n", buf);
	if (!xf.base)
		return;
	if (linger && net) {
		/* what is queued leaves first, then an orderly close */
		xf.lingering = 1;
		net->finish();
		struct timeval tv = { 5, 0 };
		if (!net->all_closed() && event_add(close_ev, &tv) == 0)
			return;
	}
	event_base_loopbreak(xf.base);
}

void xf_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(0, fmt, ap);
	va_end(ap);
}

void xf_fail_notify(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(1, fmt, ap);
	va_end(ap);
}

struct xf_stream *xf_find(const ddp_session *s, uint32_t st)
{
	for (unsigned i = 0; i < XF_MAX_STREAMS; i++)
		if (xf.str[i].s == s && xf.str[i].st == st && s)
			return &xf.str[i];
	return NULL;
}

const char *xf_err_text(const ddp_error_info *e, char *buf, size_t n)
{
	static const char *layer[] = { "RDMAP", "DDP", "LLP" };
	snprintf(buf, n, "layer %s type 0x%x code 0x%02x", e->layer < 3 ? layer[e->layer] : "?",
		 e->etype, e->code);
	return buf;
}

/* ------------------------------------------------------------ progress */

static void human(char *b, size_t n, double v)
{
	if (v >= 1024.0 * 1024 * 1024)
		snprintf(b, n, "%.2fG", v / (1024.0 * 1024 * 1024));
	else if (v >= 1024.0 * 1024)
		snprintf(b, n, "%.1fM", v / (1024.0 * 1024));
	else if (v >= 1024.0)
		snprintf(b, n, "%.1fK", v / 1024.0);
	else
		snprintf(b, n, "%.0f", v);
}

static void progress(int last)
{
	char line[2048], v[32], t[32];
	size_t k = 0;
	for (unsigned i = 0; i < xf.nstreams && i < XF_MAX_STREAMS && k < 1800; i++) {
		human(v, sizeof(v), (double)xf.str[i].bytes);
		k += (size_t)snprintf(line + k, sizeof(line) - k, "s%u %s ", i, v);
	}
	double el = xf_now() - xf.t0;
	human(v, sizeof(v), (double)xf.progress);
	human(t, sizeof(t), (double)xf.total);
	snprintf(line + k, sizeof(line) - k, "| %s/%s %.1f MiB/s", v, xf.total_known ? t : "?",
		 el > 0 ? (double)xf.progress / el / 1048576.0 : 0.0);
	if (tty) {
		fprintf(stderr, "\r%s %s\033[K", xf.o.sender ? "send:" : "recv:", line);
		line_open = 1;
		if (last)
			end_line();
	} else {
		fprintf(stderr, "%s %s\n", xf.o.sender ? "send:" : "recv:", line);
	}
	fflush(stderr);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	int started = 0;
	if (xf.succeeded || xf.lingering)
		return; /* only the orderly close is left (bounded by close_ev) */
	for (unsigned i = 0; i < XF_MAX_STREAMS; i++)
		started |= xf.str[i].joined;
	/* a receiver waits for its sender as long as it takes */
	if (!xf.o.sender && !started) {
		xf_heard();
		xf.t0 = xf_now();
		return;
	}
	if (xf_now() - xf.last_heard > xf.o.timeout) {
		xf_fail("timeout: nothing heard from the %s for %u s",
			xf.o.sender ? "receiver" : "sender", xf.o.timeout);
		return;
	}
	/* a terminal's progress line moves every tick; a log gets a line a second */
	if (tty || ++ticks % (1000 / XF_TICK_MS) == 0)
		progress(0);
}

/* ------------------------------------------------------------- the end */

static void on_close_timeout(evutil_socket_t fd, short what, void *arg)
{
	event_base_loopbreak(xf.base); /* done anyway: the peer is slow */
}

void xf_print_result(const uint8_t d[XF_SHA256_LEN], uint64_t n)
{
	char h[2 * XF_SHA256_LEN + 1];
	progress(1); /* the last progress line, ended: stdout may be the tty */
	xf_sha256_hex(d, h);
	printf("sha256 %s bytes %llu\n", h, (unsigned long long)n);
	fflush(stdout);
}

void xf_succeed(void)
{
	if (xf.succeeded || xf.failed)
		return;
	xf.succeeded = 1;
	double el = xf_now() - xf.t0;
	char v[32];
	human(v, sizeof(v), (double)xf.progress);
	fprintf(stderr, "%s done: %s octets in %.2f s\n", xf.o.sender ? "send:" : "recv:", v, el);
	net->finish();
	if (net->all_closed()) {
		event_base_loopbreak(xf.base);
		return;
	}
	struct timeval tv = { 5, 0 };
	event_add(close_ev, &tv);
}

void xf_net_closed(void)
{
	if ((xf.succeeded || xf.lingering) && net->all_closed())
		event_base_loopbreak(xf.base);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	xf_fail("interrupted by signal %d", (int)sig);
}

/* ------------------------------------------------------------- options */

static void usage(FILE *f)
{
	fprintf(f, "usage: ddp-xfer recv --llp {mpa,sctp} --listen ADDR:PORT [--out FILE]\n"
		   "       ddp-xfer send --llp {mpa,sctp} --connect ADDR:PORT --streams N FILE\n"
		   "recv --out FILE: written as FILE.partial, renamed to FILE once every octet\n"
		   "       arrived; a failed transfer removes FILE.partial (an existing FILE is\n"
		   "       left as it was). If the receiver's disk fills or a write fails, it\n"
		   "       tells the sender why and both exit with status 1.\n"
		   "options: --chunk OCTETS (default 1048576)  --depth N (buffers per stream, "
		   "default 4)\n"
		   "         --timeout SECONDS (nothing heard from the peer, default 10)\n"
		   "         --mtu N (SCTP path MTU across hosts: link MTU - 40, e.g. 1460)\n"
		   "       ddp-xfer sha256 FILE  (hash a file the way the transfer does)\n"
		   "       ddp-xfer --bench [--help] ...  (throughput against its ceilings)\n");
}

static int bad(const char *why)
{
	fprintf(stderr, "ddp-xfer: %s (try --help)\n", why);
	return 2;
}

static int split(const char *s, struct xf_opts *o)
{
	const char *c = strrchr(s, ':');
	if (!c || c == s || (size_t)(c - s) >= sizeof(o->host))
		return -1;
	memcpy(o->host, s, (size_t)(c - s));
	o->host[c - s] = 0;
	char *end;
	long p = strtol(c + 1, &end, 10);
	if (*end || p <= 0 || p > 65535)
		return -1;
	o->port = (int)p;
	return 0;
}

static int num(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (errno || *end || end == s || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* `ddp-xfer sha256 FILE`: the file's SHA-256 with the transfer's code. */
static int hash_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "ddp-xfer: %s: %s\n", path, strerror(errno));
		return 1;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	const size_t bs = 1u << 20;
	struct xf_sha256 c = { 0 };
	uint8_t *buf = malloc(bs), d[XF_SHA256_LEN];
	const char *err = NULL;
	unsigned long long n = 0;
	if (!buf || xf_sha256_init(&c))
		err = "out of memory";
	while (!err) {
		ssize_t r = read(fd, buf, bs);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			err = strerror(errno);
		if (r <= 0)
			break;
		xf_sha256_update(&c, buf, (size_t)r);
		n += (unsigned long long)r;
	}
	if (!err && xf_sha256_final(&c, d))
		err = "SHA-256 failed (libcrypto)";
	xf_sha256_free(&c);
	free(buf);
	close(fd);
	if (err) {
		fprintf(stderr, "ddp-xfer: %s: %s\n", path, err);
		return 1;
	}
	char h[2 * XF_SHA256_LEN + 1];
	xf_sha256_hex(d, h);
	printf("sha256 %s bytes %llu\n", h, n);
	return 0;
}

static int parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "llp", 1, 0, 'l' },	  { "listen", 1, 0, 'L' },  { "connect", 1, 0, 'c' },
		{ "out", 1, 0, 'o' },	  { "streams", 1, 0, 's' }, { "chunk", 1, 0, 'k' },
		{ "depth", 1, 0, 'd' },	  { "timeout", 1, 0, 't' }, { "help", 0, 0, 'h' },
		{ "mtu", 1, 0, 'm' },	  { 0, 0, 0, 0 },
	};
	struct xf_opts *o = &xf.o;
	const char *listen = NULL, *connect = NULL, *llp = NULL;
	unsigned long v;
	int c;
	o->streams = 1;
	o->depth = 4;
	o->chunk = 1u << 20;
	o->timeout = 10;
	if (argc < 2)
		return bad("give a mode: recv or send");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 1;
	}
	if (!strcmp(argv[1], "send"))
		o->sender = 1;
	else if (strcmp(argv[1], "recv"))
		return bad("the mode is recv or send");
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': llp = optarg; break;
		case 'L': listen = optarg; break;
		case 'c': connect = optarg; break;
		case 'o': o->out = optarg; break;
		case 's':
			if (num(optarg, 1, XF_MAX_STREAMS, &v))
				return bad("--streams takes 1..64");
			o->streams = (unsigned)v;
			break;
		case 'k':
			if (num(optarg, 1, 64ul << 20, &v))
				return bad("--chunk takes 1..67108864");
			o->chunk = (uint32_t)v;
			break;
		case 'd':
			if (num(optarg, 1, 63, &v))
				return bad("--depth takes 1..63");
			o->depth = (unsigned)v;
			break;
		case 't':
			if (num(optarg, 1, 3600, &v))
				return bad("--timeout takes 1..3600 seconds");
			o->timeout = (unsigned)v;
			break;
		case 'm':
			if (num(optarg, 576, 65000, &v))
				return bad("--mtu takes 576..65000");
			o->mtu = (uint32_t)v;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return bad("unknown option");
		}
	}
	if (!llp || (strcmp(llp, "mpa") && strcmp(llp, "sctp")))
		return bad("--llp mpa or --llp sctp is required");
	o->llp = strcmp(llp, "mpa") ? XF_LLP_SCTP : XF_LLP_MPA;
	if (o->sender) {
		if (!connect || listen || o->out || optind != argc - 1)
			return bad("send needs --connect ADDR:PORT and one FILE");
		if (split(connect, o))
			return bad("bad --connect ADDR:PORT");
		o->file = argv[optind];
	} else {
		if (!listen || connect || optind != argc)
			return bad("recv needs --listen ADDR:PORT (and no file)");
		if (split(listen, o))
			return bad("bad --listen ADDR:PORT");
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "sha256"))
		return hash_file(argv[2]);
	if (argc >= 2 && !strcmp(argv[1], "--bench"))
		return xf_bench_main(argc, argv);
	int rc = parse(argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	signal(SIGPIPE, SIG_IGN);
	/* keep freed heap: usrsctp mallocs and frees per packet, and glibc's
	 * trimming would return and fault in pages all the time */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	tty = isatty(2);
	net = xf.o.llp == XF_LLP_MPA ? &xf_net_mpa : &xf_net_sctp;
	xf.base = event_base_new();
	if (!xf.base || ddp_ctx_new(NULL, &xf.ctx) != 0) {
		fprintf(stderr, "ddp-xfer: cannot create the event loop or DDP context\n");
		return 1;
	}
	struct event *si = evsignal_new(xf.base, SIGINT, on_signal, NULL);
	struct event *st = evsignal_new(xf.base, SIGTERM, on_signal, NULL);
	event_add(si, NULL);
	event_add(st, NULL);
	tick_ev = event_new(xf.base, -1, EV_PERSIST, on_tick, NULL);
	close_ev = evtimer_new(xf.base, on_close_timeout, NULL);
	/* the tick also checks --timeout: it fires within XF_TICK_MS of it */
	struct timeval tv = { 0, XF_TICK_MS * 1000 };
	event_add(tick_ev, &tv);
	xf.t0 = xf_now();
	xf_heard();

	if ((xf.o.sender ? xf_send_init() : xf_recv_init()) == 0 && net->start() == 0)
		event_base_dispatch(xf.base);
	if (!xf.failed && !xf.succeeded)
		xf_fail("internal error: the event loop ended early");

	net->free();
	if (xf.o.sender)
		xf_send_free();
	else
		xf_recv_free();
	event_free(tick_ev);
	event_free(close_ev);
	event_free(si);
	event_free(st);
	ddp_ctx_free(xf.ctx);
	event_base_free(xf.base);
	return xf.failed ? 1 : 0;
}
