/* ddp-perf --latency: K channels at a fixed offered load, the one-way
 * delivery delay of every message, per LLP arrangement (latency.h).
 *
 *   ddp-perf --latency [--streams K] [--rate R] [--sizes S[,S..]]
 *            [--duration SECS] [--rows sctp,mpa,mpa1,tcp] [--json]
 *            [--netns [--link SPEC] [--mtu N]]
 *
 * R: bit/s with kbit, mbit or gbit (100mbit), or octets/s with kB/s,
 * MB/s or GB/s (12.5MB/s); a plain number is bit/s. Each row has its own
 * server child (the receiver, on CPU 1, in the server's namespace), all
 * forked before this process touches usrsctp; this process is the
 * sender (CPU 0). */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "latency.h"
#include "topo.h"

#define MAX_SIZES 4

static const char *const kind_names[LAT_NKINDS] = { "sctp", "mpa", "mpa1", "tcp" };

struct lat_run {
	struct lat_opts o;
	size_t sizes[MAX_SIZES];
	int nsizes;
	int kinds[LAT_NKINDS]; /* rows to run */
	int json;
	const char *link;
	char where[200];
};

/* The row's name in the table. */
static void row_name(char *out, size_t n, enum lat_kind k, int streams)
{
	switch (k) {
	case LAT_SCTP: snprintf(out, n, "DDP/SCTP 1 assoc"); break;
	case LAT_MPA_K: snprintf(out, n, "DDP/MPA %d conns", streams); break;
	case LAT_MPA_1: snprintf(out, n, "DDP/MPA 1 conn"); break;
	default: snprintf(out, n, "TCP 1 conn"); break;
	}
}

static size_t shm_len(void)
{
	return sizeof(struct lat_shm) + (size_t)LAT_MAX_SAMPLES * sizeof(uint32_t);
}

/* The affinity this process started with: the server children get it
 * back before they pin themselves to CPU 1 (this process may be pinned
 * to CPU 0 by then). */
static cpu_set_t start_mask;
static int have_mask;

struct child {
	pid_t pid;
	int rfd;
	struct lat_shm *sh;
};

static const char *trace_prefix;

static void serve_child(enum lat_kind k, const struct lat_opts *o, const char *host,
			const char *netns, int wfd, struct lat_shm *sh, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(0);
	if (netns && topo_enter_netns(netns)) {
		fprintf(stderr, "ddp-perf: entering %s: %s\n", netns, strerror(errno));
		_exit(1);
	}
	if (have_mask)
		sched_setaffinity(0, sizeof(start_mask), &start_mask);
	topo_pin(1);
	if (trace_prefix) {
		char path[512];
		snprintf(path, sizeof(path), "%s.%s.%zu", trace_prefix, kind_names[k], o->size);
		lat_trace = fopen(path, "w");
	}
	struct event_base *base = event_base_new();
	if (!base)
		_exit(1);
	int rc = k == LAT_TCP_1 ? lat_tcp_serve(base, o, host, wfd, sh)
				: lat_serve(base, k, o, host, wfd, sh);
	event_base_free(base);
	if (lat_trace)
		fclose(lat_trace);
	_exit(rc ? 1 : 0);
}

static int start_child(struct child *c, enum lat_kind k, const struct lat_opts *o,
		       const char *host, const char *netns)
{
	int p[2];
	c->pid = -1;
	c->rfd = -1;
	c->sh = mmap(NULL, shm_len(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c->sh == MAP_FAILED) {
		c->sh = NULL;
		return -1;
	}
	if (pipe(p))
		return -1;
	fflush(NULL);
	pid_t parent = getpid();
	c->pid = fork();
	if (c->pid == 0) {
		close(p[0]);
		serve_child(k, o, host, netns, p[1], c->sh, parent);
	}
	close(p[1]);
	c->rfd = p[0];
	return c->pid < 0 ? -1 : 0;
}

/* The child's port, or -1 (it failed to listen). */
static int child_port(struct child *c)
{
	char buf[16] = { 0 };
	ssize_t got = 0, k;
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (k = read(c->rfd, buf + got, sizeof(buf) - 1 - (size_t)got)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		got += k;
	}
	close(c->rfd);
	c->rfd = -1;
	int port = atoi(buf);
	return port > 0 ? port : -1;
}

static void stop_child(struct child *c)
{
	if (c->rfd >= 0)
		close(c->rfd);
	c->rfd = -1;
	if (c->pid > 0) {
		kill(c->pid, SIGTERM);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	c->pid = -1;
	if (c->sh)
		munmap(c->sh, shm_len());
	c->sh = NULL;
}

/* One size: a server child per row, then the rows one after another. */
static int run_size(struct lat_run *x, const char *host, const char *server_ns)
{
	struct child ch[LAT_NKINDS];
	int failed = 0;
	for (int k = 0; k < LAT_NKINDS; k++) {
		ch[k].pid = -1;
		ch[k].rfd = -1;
		ch[k].sh = NULL;
		if (x->kinds[k] && start_child(&ch[k], (enum lat_kind)k, &x->o, host, server_ns)) {
			perror("ddp-perf: --latency: starting a server");
			failed = 1;
		}
	}
	if (!x->json)
		lat_report_head(&x->o, x->where);
	for (int k = 0; k < LAT_NKINDS && !failed; k++) {
		if (!x->kinds[k])
			continue;
		char name[40];
		row_name(name, sizeof(name), (enum lat_kind)k, x->o.streams);
		int port = child_port(&ch[k]);
		double secs = 0;
		if (port < 0) {
			lat_fail(ch[k].sh, "the server did not start");
		} else {
			struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
			inet_pton(AF_INET, host, &sa.sin_addr);
			struct event_base *base = event_base_new();
			if (!base)
				lat_fail(ch[k].sh, "no event base");
			else if (k == LAT_TCP_1)
				lat_tcp_client(base, &x->o, &sa, ch[k].sh, &secs);
			else
				lat_client(base, (enum lat_kind)k, &x->o, &sa, ch[k].sh, &secs);
			if (base)
				event_base_free(base);
		}
		/* the receiver stops before its samples are read */
		pid_t pid = ch[k].pid;
		if (pid > 0) {
			kill(pid, SIGTERM);
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			ch[k].pid = -1;
		}
		lat_report_row(name, ch[k].sh, secs, &x->o, x->json);
		failed |= ch[k].sh->failed;
	}
	for (int k = 0; k < LAT_NKINDS; k++)
		stop_child(&ch[k]);
	return failed;
}

static int run_sizes(struct lat_run *x, const char *host, const char *server_ns)
{
	int failed = 0;
	for (int i = 0; i < x->nsizes; i++) {
		x->o.size = x->sizes[i];
		failed |= run_size(x, host, server_ns);
		if (!x->json && i + 1 < x->nsizes)
			printf("\n");
	}
	return failed ? 1 : 0;
}

static int netns_body(const struct topo_netns *ns, void *arg)
{
	struct lat_run *x = arg;
	snprintf(x->where, sizeof(x->where), "two network namespaces joined by %s%s%s, MTU %u",
		 ns->link ? "linkem [" : "a veth pair", ns->link ? ns->link : "",
		 ns->link ? "]" : "", ns->mtu);
	/* the client's namespace is entered by the children too, before
	 * they move to the server's: harmless */
	if (topo_enter_netns(ns->client)) {
		perror("ddp-perf: entering the client's network namespace");
		return 1;
	}
	int pinned = topo_pin(0);
	if (!pinned)
		strncat(x->where, " (not pinned)", sizeof(x->where) - strlen(x->where) - 1);
	return run_sizes(x, TOPO_SERVER_ADDR, ns->server);
}

/* "100mbit", "1gbit", "12.5MB/s", "2000000" (bit/s): bit/s, or -1. */
static double parse_rate(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || v <= 0)
		return -1;
	static const struct {
		const char *suf;
		double mul;
	} u[] = { { "", 1 },	     { "bit", 1 },	{ "kbit", 1e3 },   { "mbit", 1e6 },
		  { "gbit", 1e9 },   { "kB/s", 8e3 },	{ "MB/s", 8e6 },   { "GB/s", 8e9 },
		  { "kB", 8e3 },     { "MB", 8e6 },	{ "GB", 8e9 } };
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (!strcmp(end, u[i].suf) ||
		    (u[i].suf[0] && u[i].suf[1] == 'b' && !strcasecmp(end, u[i].suf)))
			return v * u[i].mul;
	return -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: ddp-perf --latency [--streams K (16)] [--rate R (100mbit; or MB/s)]\n"
			"                [--sizes S[,S..] (16384)] [--duration SECS (5)] [--drain SECS (5)]\n"
			"                [--rows sctp,mpa,mpa1,tcp (sctp,mpa,mpa1)] [--json] [--tcp-cc NAME|system (cubic)]\n"
			"                [--sctp-cc {rfc4960,hstcp,htcp,rtcc,cubic} (the library's default)]\n"
			"                [--trace PREFIX (the receivers write PREFIX.ROW.SIZE: one line per\n"
			"                 message: send time ms, channel, sequence, delay ms)]\n"
			"                [--netns [--link SPEC] [--mtu N]]\n");
}

int latency_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--latency"))
			return 1;
	return 0;
}

static int parse(struct lat_run *x, int argc, char **argv, int *netns, uint32_t *mtu)
{
	static const struct option opts[] = {
		{ "latency", 0, 0, 'Y' }, { "streams", 1, 0, 'n' }, { "rate", 1, 0, 'r' },
		{ "sizes", 1, 0, 'z' },	  { "size", 1, 0, 'z' },    { "duration", 1, 0, 'd' },
		{ "drain", 1, 0, 'D' },	  { "rows", 1, 0, 'w' },    { "json", 0, 0, 'j' },
		{ "netns", 0, 0, 'N' },	  { "link", 1, 0, 'K' },    { "mtu", 1, 0, 'M' },
		{ "tcp-cc", 1, 0, 'T' },  { "trace", 1, 0, 'X' },   { "sctp-cc", 1, 0, 'G' },
		{ 0, 0, 0, 0 }
	};
	int c, rows = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		char *t, *save = NULL;
		switch (c) {
		case 'Y': break;
		case 'n': x->o.streams = atoi(optarg); break;
		case 'r': x->o.rate = parse_rate(optarg); break;
		case 'd': x->o.duration = atof(optarg); break;
		case 'D': x->o.drain = atof(optarg); break;
		case 'j': x->json = 1; break;
		case 'N': *netns = 1; break;
		case 'K': x->link = optarg; *netns = 1; break;
		case 'M': *mtu = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'T': x->o.tcp_cc = optarg; break;
		case 'X': trace_prefix = optarg; break;
		case 'G': {
			x->o.sctp_cc = bench_sctp_cc_parse(optarg);
			if (x->o.sctp_cc < 0)
				return -1;
			break;
		}
		case 'z':
			x->nsizes = 0;
			for (t = strtok_r(optarg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				if (x->nsizes == MAX_SIZES)
					return -1;
				x->sizes[x->nsizes] = strtoul(t, NULL, 0);
				if (x->sizes[x->nsizes] < LAT_HDR || x->sizes[x->nsizes] > (1u << 24))
					return -1;
				x->nsizes++;
			}
			break;
		case 'w':
			rows = 1;
			memset(x->kinds, 0, sizeof(x->kinds));
			for (t = strtok_r(optarg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				int k = 0;
				while (k < LAT_NKINDS && strcmp(t, kind_names[k]))
					k++;
				if (k == LAT_NKINDS)
					return -1;
				x->kinds[k] = 1;
			}
			break;
		default: return -1;
		}
	}
	if (!rows) /* the DDP rows; raw TCP on request */
		for (int k = 0; k < LAT_NKINDS; k++)
			x->kinds[k] = k != LAT_TCP_1;
	if (x->o.streams < 1 || x->o.streams > 1024 || x->o.rate <= 0 || x->o.duration <= 0 ||
	    x->o.drain < 0 || optind != argc || (*mtu && (*mtu < 576 || *mtu > 65535)))
		return -1;
	return 0;
}

int latency_main(int argc, char **argv)
{
	struct lat_run x = { .o = { .streams = 16, .rate = 100e6, .size = 16384, .duration = 5,
				    .drain = 5 },
			     .sizes = { 16384 }, .nsizes = 1 };
	int netns = 0;
	uint32_t mtu = 0;
	if (parse(&x, argc, argv, &netns, &mtu)) {
		usage();
		return 2;
	}
	x.o.mtu = mtu;
	/* cubic, as the throughput table (main.c): the system default here
	 * is BBR, which ignores random loss, while SCTP's congestion control
	 * halves its window on it; "system" keeps the default */
	if (!x.o.tcp_cc)
		x.o.tcp_cc = "cubic";
	else if (!strcmp(x.o.tcp_cc, "system"))
		x.o.tcp_cc = NULL;
	have_mask = sched_getaffinity(0, sizeof(start_mask), &start_mask) == 0;
	signal(SIGPIPE, SIG_IGN);
	if (netns)
		return topo_netns_run(mtu ? mtu : 1500, x.link, netns_body, &x);
	int pinned = topo_pin(0);
	snprintf(x.where, sizeof(x.where), "loopback, two processes%s",
		 pinned ? " (receiver on CPU 1, sender on CPU 0)" : " (not pinned)");
	return run_sizes(&x, "127.0.0.1", NULL);
}
