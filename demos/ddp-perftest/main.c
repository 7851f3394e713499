/*
 * ddp-perftest — perftest's bandwidth and latency tests over libddp (RFC 5040
 * RDMAP on DDP), speaking perftest's rdma_cm mode (-R) so that an unmodified
 * ib_write_bw / ib_read_bw / ib_send_bw / ib_write_lat / ib_read_lat (e.g. on
 * Linux siw) is the peer in either role.
 *
 *   ddp-perftest write_bw|read_bw|send_bw|write_lat|read_lat [-s SIZE] [-a]
 *                [-n ITERS] [-D SECS] [-q QPS] [-p PORT] [-t TX] [-r RX]
 *                [-o READS] [-F] [--report_gbits] [-R] [-d]
 *                [--llp mpa|sctp] [--mpa-crc] [--timeout S] [SERVER]
 *
 * Without SERVER it is the server (listening on --bind, default every
 * address). The table is perftest's; exit 0 only when the whole exchange
 * completed, otherwise one line "ddp-perftest: REASON" and exit 1.
 */
#include "perftest.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const names[] = {"write_bw", "read_bw", "send_bw", "write_lat", "read_lat"};

static void usage(void)
{
	fprintf(stderr, "usage: ddp-perftest write_bw|read_bw|send_bw|write_lat|read_lat [-s SIZE] "
	                "[-a] [-n ITERS] [-D SECS] [-q QPS] [-p PORT] [-t TX_DEPTH] [-r RX_DEPTH] "
	                "[-o OUT_READS] [-F] [--report_gbits] [-R] [-d] [--llp mpa|sctp] "
	                "[--mpa-crc] [--bind ADDR] [--timeout S] [SERVER]\n");
	exit(2);
}

static int num(const char *s, uint64_t lo, uint64_t hi, const char *opt, uint64_t *out)
{
	char *e;
	unsigned long long v = strtoull(s, &e, 0);
	if (!*s || *e || v < lo || v > hi) {
		fprintf(stderr, "ddp-perftest: %s %s: not a number in %" PRIu64 "..%" PRIu64 "\n",
		        opt, s, lo, hi);
		exit(2);
	}
	*out = v;
	return 0;
}

static void parse(int argc, char **argv, struct pt_opts *o)
{
	if (argc < 2)
		usage();
	int t = -1;
	for (int i = 0; i < 5; i++)
		if (!strcmp(argv[1], names[i]))
			t = i;
	if (t < 0)
		usage();
	o->test = (enum pt_test)t;
	int bw = pt_is_bw(o), size_set = 0, iters_set = 0;
	o->port = 18515;
	o->qps = 1;
	o->size = bw ? 65536 : 2;
	o->iters = bw && o->test == PT_WRITE_BW ? 5000 : 1000;
	o->tx_depth = bw ? 128 : 1;
	o->rx_depth = 512;
	o->out_reads = 16;
	o->timeout = 120;
	o->addr = "0.0.0.0";
	static const struct option lo[] = {{"report_gbits", no_argument, 0, 'G'},
	                                   {"llp", required_argument, 0, 'L'},
	                                   {"mpa-crc", no_argument, 0, 'M'},
	                                   {"timeout", required_argument, 0, 'T'},
	                                   {"bind", required_argument, 0, 'B'},
	                                   {"rdma_cm", no_argument, 0, 'R'},
	                                   {"size", required_argument, 0, 's'},
	                                   {"iters", required_argument, 0, 'n'},
	                                   {"duration", required_argument, 0, 'D'},
	                                   {"qp", required_argument, 0, 'q'},
	                                   {"port", required_argument, 0, 'p'},
	                                   {"tx-depth", required_argument, 0, 't'},
	                                   {"rx-depth", required_argument, 0, 'r'},
	                                   {"outs", required_argument, 0, 'o'},
	                                   {"all", no_argument, 0, 'a'},
	                                   {0, 0, 0, 0}};
	uint64_t v;
	int c;
	optind = 2;
	while ((c = getopt_long(argc, argv, "s:an:D:q:p:t:r:o:FRd", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			num(optarg, 1, 1u << 30, "-s", &o->size), size_set = 1;
			break;
		case 'a':
			o->all = 1;
			break;
		case 'n':
			num(optarg, 5, 100000000, "-n", &o->iters), iters_set = 1;
			break;
		case 'D':
			num(optarg, 1, 3600, "-D", &v), o->duration = (int)v;
			break;
		case 'q':
			num(optarg, 1, 63, "-q", &v), o->qps = (int)v;
			break;
		case 'p':
			num(optarg, 1, 65535, "-p", &v), o->port = (int)v;
			break;
		case 't':
			num(optarg, 1, 16384, "-t", &v), o->tx_depth = (int)v;
			break;
		case 'r':
			num(optarg, 3, 16384, "-r", &v), o->rx_depth = (int)v;
			break;
		case 'o':
			num(optarg, 1, 128, "-o", &v), o->out_reads = (int)v;
			break;
		case 'F':
			break; /* perftest: do not fail on cpufreq; we use clock_gettime */
		case 'R':
			break; /* rdma_cm mode is the only one we speak */
		case 'd':
			o->debug = 1;
			break;
		case 'G':
			o->gbits = 1;
			break;
		case 'L':
			if (!strcmp(optarg, "sctp"))
				o->sctp = 1;
			else if (strcmp(optarg, "mpa"))
				usage();
			break;
		case 'M':
			o->mpa_crc = 1;
			break;
		case 'T':
			num(optarg, 1, 86400, "--timeout", &v), o->timeout = (int)v;
			break;
		case 'B':
			o->addr = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind < argc - 1)
		usage();
	if (optind == argc - 1) {
		o->addr = argv[optind];
	} else {
		o->server = 1;
	}
	if (o->all && size_set) {
		fprintf(stderr, "ddp-perftest: -a and -s together: choose one\n");
		exit(2);
	}
	if (o->duration && (iters_set || o->all || !bw || o->test == PT_SEND_BW)) {
		fprintf(stderr,
		        "ddp-perftest: -D goes with write_bw or read_bw, without -n or -a\n");
		exit(2);
	}
	if (!bw && o->qps != 1) {
		fprintf(stderr, "ddp-perftest: the latency tests run on one queue pair (-q 1)\n");
		exit(2);
	}
	if (o->size > 0xffffffffu || (o->size < 2 && pt_is_read(o))) {
		fprintf(stderr, "ddp-perftest: -s out of range\n");
		exit(2);
	}
	/* perftest's force_dependencies */
	if (!o->duration && (uint64_t)o->tx_depth > o->iters)
		o->tx_depth = (int)o->iters;
	if (o->test == PT_SEND_BW && (uint64_t)o->rx_depth > o->iters)
		o->rx_depth = (int)o->iters;
	if (o->test == PT_SEND_BW && o->rx_depth % 2 && !o->all)
		o->rx_depth++;
	long pg = sysconf(_SC_PAGESIZE);
	o->cycle_buf = pg > 0 ? (uint32_t)pg : 4096;
	o->cache_line = 64;
}

/* perftest's sizes: -s, or 2^1 .. 2^23 with -a */
static int next_size(const struct pt_opts *o, uint64_t *size, int *i)
{
	if (!o->all)
		return (*i)++ == 0 ? (*size = o->size, 1) : 0;
	if (++*i > 23)
		return 0;
	*size = 1ull << *i;
	return 1;
}

static int setup_mem(struct pt_test_ctx *t)
{
	const struct pt_opts *o = t->o;
	uint64_t max = o->all ? 1ull << 23 : o->size;
	size_t len = max > o->cycle_buf ? max : o->cycle_buf;
	t->mem = calloc((size_t)t->nqp, sizeof(*t->mem));
	t->rem = calloc((size_t)t->nqp, sizeof(*t->rem));
	t->rposted = calloc((size_t)t->nqp, sizeof(*t->rposted));
	t->credit = calloc(2 * (size_t)t->nqp, sizeof(uint32_t));
	if (!t->mem || !t->rem || !t->rposted || !t->credit)
		return pt_fail("out of memory");
	t->ctrl = t->credit + t->nqp;
	for (int i = 0; i < t->nqp; i++) {
		t->mem[i].len = len;
		t->mem[i].buf = calloc(1, len);
		if (!t->mem[i].buf)
			return pt_fail("out of memory for %zu octets", len);
		if (pt_reg(t->net, t->mem[i].buf, len, &t->mem[i].stag))
			return -1;
	}
	return pt_reg(t->net, t->credit, (size_t)t->nqp * sizeof(uint32_t), &t->credit_stag);
}

static void free_mem(struct pt_test_ctx *t)
{
	for (int i = 0; t->mem && i < t->nqp; i++)
		free(t->mem[i].buf);
	free(t->mem), free(t->rem), free(t->rposted), free(t->credit), free(t->qp);
}

/* perftest's set_up_connection (and ctx_alloc_credit for send_bw over iWARP) */
static void my_dest(struct pt_test_ctx *t, int i, struct pt_dest *d)
{
	memset(d, 0, sizeof(*d));
	d->out_reads = (uint32_t)t->o->out_reads;
	d->qpn = (uint32_t)i + 1;
	d->psn = (uint32_t)rand() & 0xffffff;
	if (t->o->test == PT_SEND_BW) {
		d->rkey = t->credit_stag;
		d->vaddr = (uint64_t)(uintptr_t)&t->credit[i];
	} else {
		d->rkey = t->mem[i].stag;
		d->vaddr = (uint64_t)(uintptr_t)t->mem[i].buf;
	}
}

static int shakes(struct pt_test_ctx *t, const char *what)
{
	for (int i = 0; i < t->nqp; i++) {
		struct pt_dest d;
		my_dest(t, i, &d);
		if (pt_hand_shake(t->comm, &d, &t->rem[i], what))
			return -1;
	}
	return 0;
}

static int sync1(struct pt_test_ctx *t, const char *what)
{
	struct pt_dest d, r;
	my_dest(t, 0, &d);
	return pt_hand_shake(t->comm, &d, &r, what);
}

/* write_bw, read_bw: the client measures, the server waits and prints the
 * client's report (write_bw.c / read_bw.c main) */
static int run_rdma_bw(struct pt_test_ctx *t)
{
	const struct pt_opts *o = t->o;
	struct pt_report mine = {0}, theirs;
	if (shakes(t, "queue pair data") || shakes(t, "queue pair data (remote)") ||
	    sync1(t, "sync after RTR"))
		return -1;
	pt_print_table_head(o);
	if (o->server) {
		if (sync1(t, "sync before the report") || pt_xchg_report(t->comm, &mine, &theirs))
			return -1;
		pt_print_bw(o, &theirs);
		if (sync1(t, "closing sync"))
			return -1;
		pt_print_line();
		return 0;
	}
	uint64_t size;
	int i = 0;
	while (next_size(o, &size, &i)) {
		if (pt_bw_client(t, size, &mine))
			return -1;
		pt_print_bw(o, &mine);
	}
	pt_print_line();
	return sync1(t, "sync before the report") || pt_xchg_report(t->comm, &mine, &theirs) ||
	       sync1(t, "closing sync");
}

/* send_bw: both sides measure; credits as perftest's over iWARP */
static int run_send_bw(struct pt_test_ctx *t)
{
	const struct pt_opts *o = t->o;
	if (shakes(t, "credit buffers") || sync1(t, "sync after RTR") ||
	    shakes(t, "queue pair data (remote)"))
		return -1;
	pt_print_table_head(o);
	uint64_t size;
	int i = 0;
	while (next_size(o, &size, &i)) {
		struct pt_report rep;
		if (o->server && pt_send_post_recvs(t, size))
			return -1;
		if (sync1(t, "sync before the run"))
			return -1;
		memset(t->credit, 0, (size_t)t->nqp * sizeof(uint32_t));
		if (o->server ? pt_send_server(t, size, &rep) : pt_bw_client(t, size, &rep))
			return -1;
		pt_print_bw(o, &rep);
		if (o->all && sync1(t, "sync after the run"))
			return -1;
	}
	pt_print_line();
	return sync1(t, "closing sync");
}

static int run_lat(struct pt_test_ctx *t)
{
	const struct pt_opts *o = t->o;
	if (sync1(t, "sync") || shakes(t, "queue pair data") ||
	    shakes(t, "queue pair data (remote)") || sync1(t, "sync after RTR"))
		return -1;
	if (o->test == PT_READ_LAT && o->server) {
		if (sync1(t, "closing sync"))
			return -1;
		pt_print_line();
		return 0;
	}
	pt_print_table_head(o);
	uint64_t size;
	int i = 0;
	while (next_size(o, &size, &i))
		if (pt_lat_run(t, size))
			return -1;
	pt_print_line();
	return o->test == PT_READ_LAT ? sync1(t, "closing sync") : 0;
}

static int run(struct pt_opts *o, struct pt_net *net)
{
	struct pt_comm comm = {.client = !o->server, .debug = o->debug};
	struct pt_test_ctx t = {.o = o, .net = net, .comm = &comm, .nqp = o->qps};
	struct pt_dest zero = {0}, r;
	int rc = -1;
	uint16_t rd = pt_is_read(o) ? (uint16_t)o->out_reads : 0;
	if (o->server)
		printf("\n************************************\n"
		       "* Waiting for client to connect... *\n"
		       "************************************\n");
	fflush(stdout);
	t.qp = calloc((size_t)o->qps, sizeof(*t.qp));
	if (!t.qp) {
		pt_fail("out of memory");
		goto out;
	}
	/* establish_connection: the control queue pair (no RDMA Reads) */
	if (pt_open(net, 0, 0, 0, &comm.qp) || pt_xchg_versions(&comm, o))
		goto out;
	/* create_rdma_cm_connection: a sync, the test queue pairs, a sync */
	if (pt_hand_shake(&comm, &zero, &r, "sync before the test connections"))
		goto out;
	for (int i = 0; i < o->qps; i++)
		if (pt_open(net, 1, rd, rd, &t.qp[i]))
			goto out;
	if (pt_hand_shake(&comm, &zero, &r, "sync after the test connections") || setup_mem(&t))
		goto out;
	pt_print_header(o);
	if (o->test == PT_WRITE_BW || o->test == PT_READ_BW)
		rc = run_rdma_bw(&t);
	else if (o->test == PT_SEND_BW)
		rc = run_send_bw(&t);
	else
		rc = run_lat(&t);
out:
	pt_close_all(net);
	pt_net_free(net);
	free_mem(&t);
	return rc;
}

int main(int argc, char **argv)
{
	struct pt_opts o = {0};
	parse(argc, argv, &o);
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	struct pt_net *net = NULL;
	int rc = pt_net_new(&o, &net);
	if (!rc)
		rc = run(&o, net);
	else
		pt_net_free(net);
	fflush(stdout);
	if (rc) {
		fprintf(stderr, "ddp-perftest: %s\n", pt_reason());
		return 1;
	}
	return 0;
}
