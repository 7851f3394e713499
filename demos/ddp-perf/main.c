/*
 * ddp-perf: DDP over MPA/TCP and over SCTP next to the raw transports,
 * measured in one run so the ratios mean something on a noisy machine.
 * With no arguments it runs the whole comparison and prints a table; the
 * server ends run in child processes on CPU 1, the client here on CPU 0.
 *
 *   ddp-perf                         the comparison (two processes, loopback)
 *   ddp-perf --one-process           ... both ends on one event loop
 *   ddp-perf --netns [--mtu N]       ... between two network namespaces
 *   ddp-perf --llp L --mode M --size N --streams N --duration S   one run
 *   ddp-perf --json ...              one JSON object per run per line
 *   ddp-perf --plot FILE.png         also draw the comparison (gnuplot)
 *   ddp-perf --sweep rtt=1ms,50ms [--link SPEC]   the throughput rows
 *                                    against a path parameter (sweep.h)
 *   ddp-perf --server --listen A:P   serve one LLP for a remote client
 *   ddp-perf --connect A:P ...       run against a remote server
 *   ddp-perf --latency ...           message latency across streams (latency.c)
 *   ddp-perf --system-usrsctp-perf PATH ...   the ddp-perf the usrsctp-system
 *                                    row runs (drv_usrsctp_system.c)
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <malloc.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "latency.h"
#include "plot.h"
#include "report.h"
#include "sweep.h"
#include "topo.h"

#define HEAP_KEEP (64u << 20) /* M_TRIM_THRESHOLD unless --heap-trim */
#define MAX_LIST 8

/* usrsctp takes an mbuf from malloc for every packet in and out. glibc's
 * default gives the top of the heap back to the kernel whenever 128 KiB
 * are free there, and the next packets fault those pages in again:
 * 45,000-100,000 page faults in a 2 s usrsctp or DDP/SCTP run (`perf stat
 * -e page-faults`), 4-14 % of the throughput, and different from run to
 * run. Every row runs with the heap kept (the same for the raw baselines
 * and DDP); --heap-trim keeps glibc's default to show the difference.
 * Set before the server children are forked: they inherit it. */
static int heap_trim;

static void heap_setup(void)
{
#ifdef M_TRIM_THRESHOLD
	if (!heap_trim && !mallopt(M_TRIM_THRESHOLD, (int)HEAP_KEEP))
		heap_trim = 1; /* not taken: say so in the output */
#else
	heap_trim = 1;
#endif
}

static const struct bench_driver *drivers[] = {
	&drv_tcp, &drv_iperf3, &drv_mpa, &drv_sctp, &drv_usrsctp, &drv_usrsctp_stock,
	&drv_usrsctp_system, &drv_udp,
};

const struct bench_driver *bench_find_driver(const char *name)
{
	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		if (strcmp(drivers[i]->name, name) == 0)
			return drivers[i];
	return NULL;
}

/* Where the rows run and how. */
enum topology { TOPO_1PROC, TOPO_2PROC, TOPO_NETNS, TOPO_REMOTE, TOPO_SERVER };

struct runner {
	enum topology topo;
	struct row *rows;
	int n, single, json;
	int quiet; /* a sweep's point: no table, no plot (sweep.c prints) */
	const char *png;
	struct bench_params one;	/* the options */
	struct topo_server srv[MAX_LIST];
	int nsrv;
	char topology[160], where[160];
	struct report_info ri;
};

static struct topo_server *server_for(struct runner *x, const char *llp)
{
	for (int i = 0; i < x->nsrv; i++)
		if (!strcmp(x->srv[i].llp, llp))
			return &x->srv[i];
	return NULL;
}

/* After a client run against a server child: wait (bounded) until the
 * child has finished that run too, then add its copies. (Its CPU time is
 * in the run's: cpu_s() counts the peer's over the measured seconds.) */
static void add_server_side(struct topo_server *s, uint64_t runs0, uint64_t copied0,
			    struct bench_result *r)
{
	struct timespec ms = { 0, 1000000 };
	for (int i = 0; i < (r->failed ? 300 : 3000); i++) {
		if (__atomic_load_n(&s->share->runs, __ATOMIC_ACQUIRE) > runs0)
			break;
		nanosleep(&ms, NULL);
	}
	r->copied += __atomic_load_n(&s->share->copied, __ATOMIC_RELAXED) - copied0;
}

static void run_one(struct event_base *base, struct runner *x, struct row *row)
{
	const struct bench_driver *d = bench_find_driver(row->p.llp);
	memset(&row->r, 0, sizeof(row->r));
	if (!d) {
		bench_fail(&row->r, "no driver '%s' in this build", row->p.llp);
		return;
	}
	struct topo_server *s = server_for(x, row->p.llp);
	uint64_t runs0 = 0, copied0 = 0;
	if (s) {
		runs0 = __atomic_load_n(&s->share->runs, __ATOMIC_ACQUIRE);
		copied0 = __atomic_load_n(&s->share->copied, __ATOMIC_RELAXED);
	}
	bench_set_peer(s ? s->pid : 0);
	d->run(base, &row->p, &row->r);
	bench_set_peer(0);
	if (s)
		add_server_side(s, runs0, copied0, &row->r);
	if (row->p.progress)
		fprintf(stderr, "\r%100s\r", "");
}

/* The sample a row reports: the median by MB/s (by round trip for rtt
 * rows); a failed sample wins so failures are never hidden. */
static void pick_median(struct row *w)
{
	int idx[REPS];
	for (int i = 0; i < REPS; i++) {
		idx[i] = i;
		if (w->s[i].failed) {
			w->r = w->s[i];
			return;
		}
	}
	for (int i = 1; i < REPS; i++)
		for (int j = i; j > 0; j--) {
			const struct bench_result *a = &w->s[idx[j - 1]], *b = &w->s[idx[j]];
			double va = bench_mode_rtt(w->p.mode) ? a->rtt_us : a->secs > 0 ? a->bytes / a->secs : 0;
			double vb = bench_mode_rtt(w->p.mode) ? b->rtt_us : b->secs > 0 ? b->bytes / b->secs : 0;
			if (va <= vb)
				break;
			int t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	w->r = w->s[idx[REPS / 2]];
}

/* The comparison: the rows of a group (raw baselines and DDP at one size
 * and stream count) take turns, REPS rounds, so slow drifts of the machine
 * hit them alike; each row reports its median sample. */
static int run_table(struct event_base *base, struct runner *x)
{
	int failed = 0;
	struct row *rows = x->rows;
	for (int g0 = 0; g0 < x->n;) {
		int g1 = g0;
		while (g1 < x->n && rows[g1].group == rows[g0].group)
			g1++;
		for (int rep = 0; rep < REPS; rep++)
			for (int i = g0; i < g1; i++) {
				run_one(base, x, &rows[i]);
				if (rows[i].r.failed) {
					/* one retry: a transient set-up failure on a
					 * loaded machine should not hide the other
					 * rows; a second failure stays a failure */
					fprintf(stderr, "ddp-perf: %s %s %zu x%d failed (%s), "
							"retrying once\n",
						rows[i].p.llp, mode_str(rows[i].p.mode), rows[i].p.size,
						rows[i].p.streams, rows[i].r.why);
					run_one(base, x, &rows[i]);
				}
				rows[i].s[rep] = rows[i].r;
			}
		for (int i = g0; i < g1; i++) {
			pick_median(&rows[i]);
			failed |= rows[i].r.failed;
			if (x->json)
				report_json(&rows[i], &x->ri);
		}
		g0 = g1;
	}
	return failed;
}

/* Run every row in this process (the client end, or both ends). */
static int run_rows(struct runner *x)
{
	struct event_base *base = event_base_new();
	if (!base)
		return 1;
	int failed = 0;
	if (x->single) {
		run_one(base, x, &x->rows[0]);
		failed = x->rows[0].r.failed;
		if (x->json)
			report_json(&x->rows[0], &x->ri);
	} else {
		failed = run_table(base, x);
	}
	if (!x->json && !x->quiet && x->topo != TOPO_SERVER)
		report_table(x->rows, x->n, x->single ? 1 : REPS, &x->ri);
	if (x->png && !x->quiet && plot_comparison(x->rows, x->n, x->png, x->topology) != 0)
		fprintf(stderr, "ddp-perf: gnuplot failed, no plot written\n");
	event_base_free(base);
	return failed;
}

/* Two processes (loopback or netns): a server child per LLP of the rows
 * (in server_ns, if any), this process the client (in client_ns). */
static int run_two(struct runner *x, const char *host, const char *server_ns,
		   const char *client_ns)
{
	/* (usrsctp-system's ddp-perf makes both of its ends itself) */
	for (int i = 0; i < x->n; i++) {
		const struct bench_driver *d = bench_find_driver(x->rows[i].p.llp);
		if (!server_for(x, x->rows[i].p.llp) && x->nsrv < MAX_LIST && d &&
		    d != &drv_usrsctp_system)
			x->srv[x->nsrv++].llp = x->rows[i].p.llp;
	}
	if (topo_start_servers(x->srv, x->nsrv, &x->one, host, server_ns))
		return 1;
	if (client_ns && topo_enter_netns(client_ns)) {
		perror("ddp-perf: entering the client's network namespace");
		topo_stop_servers(x->srv, x->nsrv);
		return 1;
	}
	int pinned = topo_pin(0);
	snprintf(x->where, sizeof(x->where), "%s, server and client in two processes%s",
		 x->topo != TOPO_NETNS		? "loopback"
		 : strstr(x->topology, "linkem") ? "two network namespaces joined by linkem"
						 : "two network namespaces joined by a veth pair",
		 pinned ? " (server on CPU 1, client on CPU 0)" : " (not pinned: fewer than 2 CPUs)");
	for (int i = 0; i < x->n; i++) {
		struct topo_server *s = server_for(x, x->rows[i].p.llp);
		if (!s)
			continue;
		struct sockaddr_in *sin = (struct sockaddr_in *)&x->rows[i].p.addr;
		memset(sin, 0, sizeof(x->rows[i].p.addr));
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)s->port);
		inet_pton(AF_INET, host, &sin->sin_addr);
		x->rows[i].p.addrlen = sizeof(*sin);
		x->rows[i].p.role = 2;
	}
	int failed = run_rows(x);
	fflush(stdout);
	topo_stop_servers(x->srv, x->nsrv);
	return failed ? 1 : 0;
}

/* The options a child ddp-perf (the usrsctp-system row) gets to make its
 * ends as this run makes them: one process; two on loopback (none); or
 * two network namespaces of its own, joined as this run's (link: --link's
 * SPEC, or NULL for the veth pair; the MTU goes with the row). */
static void child_topology(struct runner *x, const char *link)
{
	for (int i = 0; i < x->n; i++) {
		const char **o = x->rows[i].p.child_opts;
		int k = 0;
		memset(x->rows[i].p.child_opts, 0, sizeof(x->rows[i].p.child_opts));
		if (x->topo == TOPO_1PROC)
			o[k++] = "--one-process";
		if (x->topo == TOPO_NETNS)
			o[k++] = "--netns";
		if (x->topo == TOPO_NETNS && link) {
			o[k++] = "--link";
			o[k++] = link;
		}
		if (heap_trim)
			o[k++] = "--heap-trim";
	}
}

static int netns_body(const struct topo_netns *ns, void *arg)
{
	struct runner *x = arg;
	child_topology(x, ns->link);
	if (ns->link)
		snprintf(x->topology, sizeof(x->topology), "netns-linkem-mtu%u[%s]", ns->mtu,
			 ns->link);
	else
		snprintf(x->topology, sizeof(x->topology), "netns-veth-mtu%u", ns->mtu);
	return run_two(x, TOPO_SERVER_ADDR, ns->server, ns->client);
}

/* --sweep: one point, the rows in shared memory (sweep.c) */
static int sweep_point(const char *spec, struct row *rows, int n, void *arg)
{
	struct runner *x = arg;
	x->rows = rows;
	x->ri.rows = rows;
	x->n = x->ri.nrows = n;
	return topo_netns_run(x->one.mtu ? x->one.mtu : 1500, spec, netns_body, x);
}

static int parse_addr(const char *s, struct bench_params *p)
{
	char host[128];
	const char *colon = strrchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = 0;
	struct sockaddr_in *sin = (struct sockaddr_in *)&p->addr;
	memset(&p->addr, 0, sizeof(p->addr));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		return -1;
	p->addrlen = sizeof(*sin);
	return 0;
}

/* The TCP congestion control both TCP LLPs use. Default: cubic (reno if
 * the kernel refuses cubic). Loopback has no loss, so the choice only
 * decides pacing: BBR (this machine's system default) paces every socket
 * with a high-resolution timer (~20,000 timer interrupts a second here),
 * which makes a run land at one of two speeds by chance. */
static const char *pick_cc(const char *want)
{
	if (want && !strcmp(want, "system"))
		return NULL;
	static const char *const tries[] = { "cubic", "reno" };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return NULL;
	const char *got = NULL;
	if (want) {
		got = bench_set_cc(fd, want) == 0 ? want : NULL;
		if (!got)
			fprintf(stderr, "ddp-perf: TCP congestion control %s refused by the "
					"kernel, using the system default\n", want);
	} else {
		for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]) && !got; i++)
			if (bench_set_cc(fd, tries[i]) == 0)
				got = tries[i];
	}
	close(fd);
	return got;
}

static void usage(void)
{
	fprintf(stderr, "usage: ddp-perf [--llp {mpa,sctp,tcp,iperf3,usrsctp,usrsctp-stock,usrsctp-system,udp}] "
			"[--mode {untagged,tagged,rtt,write,read,read-rtt}] [--size N] [--streams N] [--duration S]\n"
			"                [--json] [--plot FILE.png] [--server --listen A:P | --connect A:P]\n"
			"                [--one-process | --netns [--link SPEC]] [--mtu N (link MTU of the SCTP-family\n"
			"                 rows and of --netns's veth pair, default 1500 there)]\n"
			"                [--sizes N,N,.. --llps L,L,.. (the comparison's rows)]\n"
			"                [--sweep loss=P,P,..|rtt=T,T,.. (with --netns, on top of --link SPEC:\n"
			"                 the throughput rows once per value; default --sizes 65536\n"
			"                 --llps tcp,iperf3,usrsctp,mpa,sctp; a table per size and streams)]\n"
			"                [--tcp-cc NAME|system (TCP congestion control of tcp, iperf3, mpa,\n"
			"                 default cubic)] [--no-crc (mpa, both ends: no MPA CRC)]\n"
			"                [--heap-trim (glibc's default heap trimming; default: keep)]\n"
			"                [--sctp-cc {rfc4960,hstcp,htcp,rtcc,cubic} --sctp-buf OCTETS (usrsctp's congestion\n"
			"                 control and socket buffers of the sctp and usrsctp rows; default: the library's)]\n"
			"                [--system-usrsctp-perf PATH (the ddp-perf built against the packaged\n"
			"                 libusrsctp that the usrsctp-system row runs; default %s,\n"
			"                 made by `make perf-system-usrsctp`)]\n",
		bench_system_perf_default());
}

/* "a,b,c" into at most MAX_LIST items; the count or -1. */
static int split_list(char *s, char *items[MAX_LIST])
{
	int n = 0;
	for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
		if (n == MAX_LIST)
			return -1;
		items[n++] = t;
	}
	return n ? n : -1;
}

static int in_list(char *const *items, int n, const char *s)
{
	if (n == 0)
		return 1; /* no --llps: all */
	for (int i = 0; i < n; i++)
		if (!strcmp(items[i], s))
			return 1;
	return 0;
}

/* The comparison's rows: per size and stream count the raw baselines and
 * the four DDP rows, then RDMA Write and Read at 64 KiB x 1 (a group of
 * their own), then the round trips (with the 64-octet RDMA Read). */
static int table_rows(struct runner *x, const size_t *sizes, int nsizes, char *const *llps,
		      int nllps)
{
	static const int streams[] = { 1, 16 };
	static const char *raws[] = { "tcp", "iperf3", "usrsctp", "usrsctp-stock", "usrsctp-system",
				      "udp" };
	static const char *ddps[] = { "mpa", "sctp" };
	static const char *rtts[] = { "tcp", "mpa", "mpa", "usrsctp", "usrsctp-system", "sctp", "sctp" };
	const int nraws = (int)(sizeof(raws) / sizeof(raws[0]));
	const int nrtts = (int)(sizeof(rtts) / sizeof(rtts[0]));
	x->rows = calloc((size_t)nsizes * 2 * (size_t)(nraws + 4) + 4 + (size_t)nrtts, sizeof(*x->rows));
	if (!x->rows)
		return -1;
	/* 1.5 s per row in REPS interleaved samples */
	double dur = (x->one.duration == 2.0 ? 1.5 : x->one.duration) / REPS;
	int g = 0, n = 0;
	struct bench_params t = x->one;
	t.duration = dur;
	for (int si = 0; si < nsizes; si++)
		for (int ni = 0; ni < 2; ni++, g++) {
			t.size = sizes[si];
			t.streams = streams[ni];
			for (int k = 0; k < nraws; k++) {
				if (!in_list(llps, nllps, raws[k]))
					continue;
				x->rows[n].group = g;
				x->rows[n].p = t;
				x->rows[n++].p.llp = raws[k];
			}
			for (int k = 0; k < 2; k++)
				for (int m = 0; m < 2 && in_list(llps, nllps, ddps[k]); m++) {
					x->rows[n].group = g;
					x->rows[n].p = t;
					x->rows[n].p.llp = ddps[k];
					x->rows[n++].p.mode = m ? MODE_TAGGED : MODE_UNTAGGED;
				}
		}
	int rdma = 0;
	for (int k = 0; k < 2; k++)
		for (int m = 0; m < 2 && in_list(llps, nllps, ddps[k]); m++, rdma = 1) {
			x->rows[n].group = g;
			x->rows[n].p = t;
			x->rows[n].p.llp = ddps[k];
			x->rows[n].p.mode = m ? MODE_READ : MODE_WRITE;
			x->rows[n].p.size = 65536;
			x->rows[n++].p.streams = 1;
		}
	g += rdma;
	for (int k = 0; k < nrtts; k++) {
		if (!in_list(llps, nllps, rtts[k]))
			continue;
		x->rows[n].group = g;
		x->rows[n].p = t;
		x->rows[n].p.llp = rtts[k];
		x->rows[n].p.mode = k == 2 || k == 6 ? MODE_READ_RTT : MODE_RTT;
		x->rows[n].p.size = 64;
		x->rows[n++].p.streams = 1;
	}
	x->n = n;
	return n ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "llp", 1, 0, 'l' },	    { "mode", 1, 0, 'm' },    { "size", 1, 0, 's' },
		{ "streams", 1, 0, 'n' },   { "duration", 1, 0, 'd' }, { "json", 0, 0, 'j' },
		{ "plot", 1, 0, 'p' },	    { "server", 0, 0, 'S' },  { "listen", 1, 0, 'L' },
		{ "connect", 1, 0, 'C' },   { "help", 0, 0, 'h' },    { "mtu", 1, 0, 'M' },
		{ "tcp-cc", 1, 0, 'T' },   { "no-crc", 0, 0, 'R' },    { "heap-trim", 0, 0, 'H' },
		{ "one-process", 0, 0, '1' }, { "netns", 0, 0, 'N' }, { "link", 1, 0, 'K' }, { "sizes", 1, 0, 'z' },
		{ "llps", 1, 0, 'P' },	    { "sctp-cc", 1, 0, 'G' }, { "sctp-buf", 1, 0, 'B' },
		{ "sweep", 1, 0, 'W' },     { "system-usrsctp-perf", 1, 0, 'Y' },
		{ 0, 0, 0, 0 }
	};
	if (latency_wanted(argc, argv))
		return latency_main(argc, argv);
	struct runner x = { .topo = TOPO_2PROC };
	struct bench_params *one = &x.one;
	*one = (struct bench_params){ .llp = NULL, .size = 65536, .streams = 1, .duration = 2.0,
				      .system_perf = bench_system_perf_default() };
	int c, one_proc = 0, netns = 0, nsizes = 0, nllps = 0;
	const char *link = NULL; /* --link SPEC (implies --netns) */
	size_t sizes[MAX_LIST] = { 1024, 16384, 65536 };
	char *llps[MAX_LIST], *items[MAX_LIST];
	const char *cc_want = NULL;
	struct sweep sw = { 0 };
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': one->llp = optarg; x.single = 1; break;
		case 'm':
			if ((c = bench_mode_parse(optarg)) < 0) {
				usage();
				return 2;
			}
			one->mode = (enum bench_mode)c;
			x.single = 1;
			break;
		case 's': one->size = strtoul(optarg, NULL, 0); x.single = 1; break;
		case 'n': one->streams = atoi(optarg); x.single = 1; break;
		case 'd': one->duration = atof(optarg); break;
		case 'j': x.json = 1; break;
		case 'p': x.png = optarg; break;
		case 'S': one->role = 1; break;
		case 'M': one->mtu = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'T': cc_want = optarg; break;
		case 'R': one->no_crc = 1; break;
		case 'G':
			if ((one->sctp_cc = bench_sctp_cc_parse(optarg)) < 0) {
				fprintf(stderr, "ddp-perf: --sctp-cc: rfc4960, hstcp, htcp, rtcc or cubic\n");
				return 2;
			}
			break;
		case 'B': one->sctp_buf = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'Y': one->system_perf = optarg; break;
		case 'H': heap_trim = 1; break;
		case '1': one_proc = 1; break;
		case 'N': netns = 1; break;
		case 'K': link = optarg; netns = 1; break;
		case 'W':
			if (sweep_parse(&sw, optarg))
				return 2;
			netns = 1;
			break;
		case 'z':
			if ((nsizes = split_list(optarg, items)) < 0) {
				usage();
				return 2;
			}
			for (int i = 0; i < nsizes; i++)
				if (!(sizes[i] = strtoul(items[i], NULL, 0)) || sizes[i] > (1u << 24)) {
					usage();
					return 2;
				}
			break;
		case 'P':
			if ((nllps = split_list(optarg, llps)) < 0) {
				usage();
				return 2;
			}
			for (int i = 0; i < nllps; i++)
				if (!bench_find_driver(llps[i])) {
					fprintf(stderr, "ddp-perf: no LLP %s\n", llps[i]);
					return 2;
				}
			break;
		case 'L':
		case 'C':
			if (parse_addr(optarg, one)) {
				fprintf(stderr, "ddp-perf: bad address %s (want IPv4:PORT)\n", optarg);
				return 2;
			}
			if (c == 'C')
				one->role = 2;
			break;
		default: usage(); return 2;
		}
	}
	if (one->size == 0 || one->size > (1u << 24) || one->streams < 1 || one->streams > 1024 ||
	    one->duration <= 0 || (one->mtu && (one->mtu < 576 || one->mtu > 65535))) {
		usage();
		return 2;
	}
	if (bench_mode_rdma(one->mode) && one->llp && strcmp(one->llp, "mpa") &&
	    strcmp(one->llp, "sctp")) {
		fprintf(stderr, "ddp-perf: --mode %s runs over DDP: --llp mpa or sctp\n",
			bench_mode_name(one->mode));
		return 2;
	}
	if (one->no_crc && (!one->llp || strcmp(one->llp, "mpa"))) {
		fprintf(stderr, "ddp-perf: --no-crc applies to one --llp mpa run only\n");
		return 2;
	}
	if ((netns || one_proc) && one->role) {
		fprintf(stderr, "ddp-perf: --netns and --one-process are for local runs, not "
				"--server/--connect\n");
		return 2;
	}
	if (netns && one_proc) {
		fprintf(stderr, "ddp-perf: --netns runs two processes; not with --one-process\n");
		return 2;
	}
	if (sw.n && (x.single || one->role)) {
		fprintf(stderr, "ddp-perf: --sweep runs the comparison's rows: not with --llp, --mode, "
				"--size, --streams or --server/--connect\n");
		return 2;
	}
	x.topo = one->role == 1 ? TOPO_SERVER : one->role == 2 ? TOPO_REMOTE
		 : netns ? TOPO_NETNS : one_proc ? TOPO_1PROC : TOPO_2PROC;
	signal(SIGPIPE, SIG_IGN); /* a server gone mid-run: an error, not death */
	one->tcp_cc = pick_cc(cc_want);
	heap_setup();
	x.one.progress = isatty(2) && !x.json;
	if (x.single || one->role) {
		x.rows = calloc(1, sizeof(*x.rows));
		if (!x.rows)
			return 1;
		x.rows[0].p = *one;
		if (!x.rows[0].p.llp)
			x.rows[0].p.llp = "mpa";
		x.n = 1;
		x.single = 1;
	} else {
		static char *sweep_llps[] = { "tcp", "iperf3", "usrsctp", "mpa", "sctp" };
		if (sw.n && !nsizes) /* a sweep: 64 KiB unless --sizes */
			sizes[0] = 65536, nsizes = 1;
		if (sw.n && !nllps)
			memcpy(llps, sweep_llps, sizeof(sweep_llps)), nllps = 5;
		if (table_rows(&x, sizes, nsizes ? nsizes : 3, llps, nllps) ||
		    (sw.n && !(x.n = sweep_rows(x.rows, x.n)))) {
			fprintf(stderr, "ddp-perf: no rows to run\n");
			return 2;
		}
	}
	static const char *const names[] = { "loopback-1proc", "loopback-2proc", "netns-veth-mtu",
					     "remote", "server" };
	snprintf(x.topology, sizeof(x.topology), "%s", names[x.topo]);
	snprintf(x.where, sizeof(x.where), "%s",
		 x.topo == TOPO_1PROC ? "loopback, both ends on one event loop in one process"
		 : x.topo == TOPO_REMOTE ? "remote server (--connect)" : "");
	x.ri = (struct report_info){ .topology = x.topology, .where = x.where,
				     .heap_trim = heap_trim, .rows = x.rows, .nrows = x.n,
				     .cpu = x.topo == TOPO_1PROC ? "both ends (one process)"
					    : x.topo == TOPO_REMOTE ? "this end only (the client)"
					    : "both processes (client and server)" };
	child_topology(&x, link);
	int rc;
	if (sw.n) {
		struct row *tmpl = x.rows;
		const char *png = x.png;
		x.quiet = 1;
		x.png = NULL;
		rc = sweep_run(&sw, link, tmpl, x.n, sweep_point, &x, png);
		x.rows = tmpl;
	} else if (x.topo == TOPO_NETNS)
		rc = topo_netns_run(one->mtu ? one->mtu : 1500, link, netns_body, &x);
	else if (x.topo == TOPO_2PROC)
		rc = run_two(&x, "127.0.0.1", NULL, NULL);
	else
		rc = run_rows(&x) ? 1 : 0;
	free(x.rows);
	return rc;
}
