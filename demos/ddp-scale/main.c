/* ddp-scale: resident memory of many connections that all move data, per
 * LLP and side (scale.h). Prints one table; --check makes it a test. */
#include "scale.h"

#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ddp_test.h"

enum { P_BEFORE, P_OPEN, P_MOVING, P_QUIET, P_CLOSED, NPHASE };
static const char *const phase_name[NPHASE] = {"before", "open", "moving", "quiet", "closed"};

struct row {
	const char *llp, *side;
	long conns, streams;   /* asked for */
	long up;	       /* connections up when opened */
	long kib[NPHASE];      /* VmRSS (kernel: socket memory); -1: not measured */
	long heap[NPHASE];     /* malloc's blocks in use; -1: not measured */
	long rings[NPHASE];    /* rings or staging areas alive (-1: none to count) */
	long rings_peak;
	uint64_t msgs_rx;
	long errors;
	int failed;
};

#define MAXROWS 6
static struct row rows[MAXROWS];
static int nrows;

/* ------------------------------------------------------------ children */

struct child {
	pid_t pid;
	int fd;
};

static int spawn(const struct scale_opts *o, const struct side_ops *ops, int server,
		 struct child *ch, const struct child *other)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -1;
	fflush(stdout);
	ch->pid = fork();
	if (ch->pid < 0)
		return -1;
	if (ch->pid == 0) {
		close(sv[0]);
		if (other)
			close(other->fd);
		_exit(side_main(o, ops, server, sv[1]));
	}
	close(sv[1]);
	ch->fd = sv[0];
	return 0;
}

/* A child's answer; -1 when it died or took more than 3 minutes. */
static int get_rep(struct child *ch, struct scale_rep *r)
{
	struct pollfd p = {ch->fd, POLLIN, 0};
	if (poll(&p, 1, 180000) != 1)
		return -1;
	return read(ch->fd, r, sizeof(*r)) == (ssize_t)sizeof(*r) && !r->failed ? 0 : -1;
}

static int cmd(struct child *ch, int c, int arg, struct scale_rep *r)
{
	unsigned char b = (unsigned char)c;
	if (write(ch->fd, &b, 1) != 1)
		return -1;
	if (c == CMD_OPEN && write(ch->fd, &arg, sizeof(arg)) != (ssize_t)sizeof(arg))
		return -1;
	if (c == CMD_EXIT)
		return 0;
	struct scale_rep tmp;
	return get_rep(ch, r ? r : &tmp);
}

static void finish(struct child *ch)
{
	int st;
	if (ch->pid <= 0)
		return;
	cmd(ch, CMD_EXIT, 0, NULL);
	close(ch->fd);
	waitpid(ch->pid, &st, 0);
	ch->pid = 0;
}

/* ------------------------------------------------------------ kernel */

/* The kernel's socket memory, KiB: the "mem" pages of /proc/net/sockstat's
 * TCP or UDP line (usrsctp runs over UDP). The count is the protocol's
 * over the whole machine, not of one network namespace. */
static long kernel_kib(const char *proto)
{
	char line[256], want[16];
	long mem = -1;
	FILE *f = fopen("/proc/net/sockstat", "r");
	if (!f)
		return -1;
	snprintf(want, sizeof(want), "%s:", proto);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, want, strlen(want)))
			continue;
		char *m = strstr(line, " mem ");
		if (m)
			mem = strtol(m + 5, NULL, 10);
		break;
	}
	fclose(f);
	return mem < 0 ? -1 : mem * (sysconf(_SC_PAGESIZE) / 1024);
}

/* ------------------------------------------------------------ one LLP */

static void take(struct row *w, int ph, const struct scale_rep *r)
{
	w->kib[ph] = r->rss_kib;
	w->heap[ph] = r->heap_kib;
	w->rings[ph] = r->rings_now;
	if (r->rings_peak > w->rings_peak)
		w->rings_peak = r->rings_peak;
	if (ph == P_OPEN)
		w->up = r->conns;
	if (ph == P_MOVING)
		w->msgs_rx = r->msgs_rx;
	w->errors = r->errors;
}

static struct row *new_row(const char *llp, const char *side, long conns, long streams)
{
	struct row *w = &rows[nrows++];
	memset(w, 0, sizeof(*w));
	w->llp = llp;
	w->side = side;
	w->conns = conns;
	w->streams = streams;
	for (int i = 0; i < NPHASE; i++)
		w->kib[i] = w->heap[i] = w->rings[i] = -1;
	return w;
}

static void kernel_take(struct row *k, int ph, const char *proto)
{
	k->kib[ph] = kernel_kib(proto);
}

static int run_llp(const struct scale_opts *o, const char *llp, const char *proto,
		   const struct side_ops *sops, const struct side_ops *cops, long conns,
		   long streams)
{
	struct child srv = {0, -1}, cli = {0, -1};
	struct scale_rep r;
	struct row *ws = new_row(llp, "server", conns, streams);
	struct row *wc = new_row(llp, "client", conns, streams);
	struct row *wk = new_row(llp, "kernel", conns, streams);
	int rc = -1;
	fprintf(stderr, "ddp-scale: %s: %ld connections\n", llp, conns);
	kernel_take(wk, P_BEFORE, proto);
	if (spawn(o, sops, 1, &srv, NULL) || get_rep(&srv, &r))
		goto out;
	take(ws, P_BEFORE, &r);
	int port = r.port;
	if (spawn(o, cops, 0, &cli, &srv) || get_rep(&cli, &r))
		goto out;
	take(wc, P_BEFORE, &r);
	/* open */
	if (cmd(&cli, CMD_OPEN, port, &r))
		goto out;
	take(wc, P_OPEN, &r);
	if (cmd(&srv, CMD_REPORT, 0, &r))
		goto out;
	take(ws, P_OPEN, &r);
	kernel_take(wk, P_OPEN, proto);
	fprintf(stderr, "ddp-scale: %s: %ld up; moving for %u s\n", llp, wc->up, o->move_s);
	/* moving */
	if (cmd(&cli, CMD_MOVE, 0, NULL))
		goto out;
	sleep(o->move_s);
	if (cmd(&cli, CMD_REPORT, 0, &r))
		goto out;
	take(wc, P_MOVING, &r);
	if (cmd(&srv, CMD_REPORT, 0, &r))
		goto out;
	take(ws, P_MOVING, &r);
	kernel_take(wk, P_MOVING, proto);
	/* quiet */
	if (cmd(&cli, CMD_STOP, 0, NULL))
		goto out;
	fprintf(stderr, "ddp-scale: %s: quiet for %u s\n", llp, o->quiet_s);
	sleep(o->quiet_s);
	if (cmd(&cli, CMD_REPORT, 0, &r))
		goto out;
	take(wc, P_QUIET, &r);
	if (cmd(&srv, CMD_REPORT, 0, &r))
		goto out;
	take(ws, P_QUIET, &r);
	kernel_take(wk, P_QUIET, proto);
	/* closed */
	if (cmd(&cli, CMD_CLOSE, 0, &r))
		goto out;
	take(wc, P_CLOSED, &r);
	if (cmd(&srv, CMD_CLOSE, 0, &r))
		goto out;
	take(ws, P_CLOSED, &r);
	kernel_take(wk, P_CLOSED, proto);
	rc = 0;
out:
	if (rc) {
		fprintf(stderr, "ddp-scale: %s: a side failed or timed out\n", llp);
		ws->failed = wc->failed = 1;
	}
	finish(&cli);
	finish(&srv);
	return rc;
}

/* ------------------------------------------------------------ report */

static void put_kib(long v)
{
	if (v < 0)
		printf(" %8s", "-");
	else
		printf(" %8ld", v);
}

static double per_conn_of(const struct row *w, const long *v, int ph)
{
	if (v[ph] < 0 || v[P_BEFORE] < 0 || !w->conns)
		return 0;
	return (double)(v[ph] - v[P_BEFORE]) / (double)w->conns;
}

static double per_conn(const struct row *w, int ph)
{
	return per_conn_of(w, w->kib, ph);
}

static void print_table(const struct scale_opts *o)
{
	printf("ddp-scale: %u-octet messages, every connection (SCTP: every stream) sends one "
	       "every %u ms and gets it back; moving %u s, quiet %u s\n",
	       o->size, o->interval_ms, o->move_s, o->quiet_s);
	printf("resident memory in KiB: server and client are the VmRSS of each process; kernel is "
	       "the kernel's socket memory of the whole machine (/proc/net/sockstat mem: TCP for "
	       "mpa, UDP for sctp; every program's sockets count)\n");
	printf("%-5s %-7s %6s %4s", "llp", "side", "conns", "strm");
	for (int i = 0; i < NPHASE; i++)
		printf(" %8s", phase_name[i]);
	printf(" | %-28s | %-21s | %9s %6s\n", "KiB per conn: open moving quiet closed",
	       "rings: moving quiet peak", "msgs rx", "errors");
	for (int i = 0; i < nrows; i++) {
		const struct row *w = &rows[i];
		printf("%-5s %-7s %6ld %4ld", w->llp, w->side, w->conns, w->streams);
		for (int p = 0; p < NPHASE; p++)
			put_kib(w->kib[p]);
		printf(" | %6.2f %6.2f %6.2f %6.2f           |", per_conn(w, P_OPEN),
		       per_conn(w, P_MOVING), per_conn(w, P_QUIET), per_conn(w, P_CLOSED));
		if (strcmp(w->side, "kernel"))
			printf(" %6ld %5ld %6ld      |", w->rings[P_MOVING], w->rings[P_QUIET],
			       w->rings_peak);
		else
			printf(" %6s %5s %6s      |", "-", "-", "-");
		if (strcmp(w->side, "kernel"))
			printf(" %9llu %6ld%s\n", (unsigned long long)w->msgs_rx, w->errors,
			       w->failed ? " FAILED" : "");
		else
			printf(" %9s %6s\n", "-", "-");
	}
	printf("per conn = (column - before) / conns (SCTP: per association of %u streams); "
	       "rings: receive rings (MPA) or staging areas (SCTP) alive in that process, counted "
	       "by the library\n",
	       o->sctp_streams);
	/* no count (not glibc), or an allocator of its own (ASan: zeros) */
	if (nrows == 0 || rows[0].heap[P_BEFORE] <= 0)
		return;
	printf("malloc's heap in use in KiB (mallinfo2: blocks handed out and not freed); RSS above "
	       "it is memory freed but kept by malloc, or pages outside malloc\n");
	printf("%-5s %-7s %6s %4s", "llp", "side", "conns", "strm");
	for (int i = 0; i < NPHASE; i++)
		printf(" %8s", phase_name[i]);
	printf(" | %s\n", "KiB per conn: open moving quiet closed");
	for (int i = 0; i < nrows; i++) {
		const struct row *w = &rows[i];
		if (!strcmp(w->side, "kernel"))
			continue;
		printf("%-5s %-7s %6ld %4ld", w->llp, w->side, w->conns, w->streams);
		for (int p = 0; p < NPHASE; p++)
			put_kib(w->heap[p]);
		printf(" | %6.2f %6.2f %6.2f %6.2f\n", per_conn_of(w, w->heap, P_OPEN),
		       per_conn_of(w, w->heap, P_MOVING), per_conn_of(w, w->heap, P_QUIET),
		       per_conn_of(w, w->heap, P_CLOSED));
	}
}

/* --check: every connection came up, nothing failed, and, unless KIB is 0
 * (RSS means nothing under ASan): RSS per DDP stream session while moving
 * stays under KIB, and after every connection closed at least a quarter
 * of the memory per connection went back to the system (the library
 * trims its heap when half of its connections or streams went,
 * common/heap_trim.h: checked where that happened at least once). No MPA
 * ring may outlive the quiet phase (the library's count: checked always).
 * Returns the number of violations (each printed). */
static int check(const struct scale_opts *o)
{
	int bad = 0;
	for (int i = 0; i < nrows; i++) {
		const struct row *w = &rows[i];
		if (!strcmp(w->side, "kernel"))
			continue;
		const char *why = NULL;
		double quiet = per_conn(w, P_QUIET), closed = per_conn(w, P_CLOSED);
		if (w->failed)
			why = "did not finish";
		else if (w->up != w->conns)
			why = "not every connection came up";
		else if (w->errors)
			why = "errors";
		else if (w->msgs_rx == 0)
			why = "no message moved";
		else if (strcmp(w->side, "kernel") && w->rings[P_QUIET] != 0)
			why = "receive rings or staging areas not given back when quiet";
		else if (o->max_kib > 0 && per_conn(w, P_MOVING) / (double)w->streams > o->max_kib)
			why = "RSS per stream session while moving over the bound";
		else if (o->max_kib > 0 && w->conns * w->streams >= 2 * HEAP_TRIM_MIN &&
			 closed > 0.75 * quiet)
			why = "memory not given back after every connection closed";
		if (why) {
			printf("check: %s %s: %s\n", w->llp, w->side, why);
			bad++;
		}
	}
	return bad;
}

/* ------------------------------------------------------------ set-up */

static int raise_nofile(rlim_t want)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_NOFILE, &r) < 0)
		return -1;
	if (r.rlim_cur >= want)
		return 0;
	if (r.rlim_max < want) {
		struct rlimit h = {want, want}; /* root may raise the hard limit */
		if (setrlimit(RLIMIT_NOFILE, &h) == 0)
			return 0;
	}
	r.rlim_cur = r.rlim_max < want ? r.rlim_max : want;
	if (setrlimit(RLIMIT_NOFILE, &r) < 0)
		return -1;
	return r.rlim_cur >= want ? 0 : -1;
}

/* A network namespace of our own (root only): 10,000 connections and
 * their TIME_WAIT entries take ephemeral ports of no other program; its
 * loopback is brought up. */
static int netns_own(void)
{
	if (unshare(CLONE_NEWNET) < 0)
		return -1;
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	int rc = s >= 0 && ioctl(s, SIOCGIFFLAGS, &ifr) == 0 &&
			 (ifr.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &ifr) == 0)
		     ? 0
		     : -1;
	if (s >= 0)
		close(s);
	return rc;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ddp-scale [--mpa N] [--sctp M] [--streams K] [--size OCTETS]\n"
		"                 [--interval-ms MS] [--move-s S] [--quiet-s S] [--check KIB]\n"
		"                 [--no-netns]\n"
		"  --mpa N        MPA/TCP connections (default 10000; 0: none)\n"
		"  --sctp M       SCTP associations (default 1000; 0: none)\n"
		"  --streams K    DDP stream sessions per association (default 16)\n"
		"  --size OCTETS  message size (default 1024)\n"
		"  --interval-ms  each connection (stream) sends every MS (default 500)\n"
		"  --move-s S     moving before the reading (default 5)\n"
		"  --quiet-s S    quiet before the reading (default 3)\n"
		"  --check KIB    exit 1 unless every connection came up and moved data,\n"
		"                 no MPA ring or SCTP staging area outlived the quiet phase, and (KIB > 0) RSS\n"
		"                 per DDP stream session while moving <= KIB and at least\n"
		"                 a quarter of it given back after every connection closed\n"
		"  --no-netns     stay in this network namespace (else, as root, one of\n"
		"                 its own, whose ports no other program uses)\n");
}

int main(int argc, char **argv)
{
	struct scale_opts o = {
	    .mpa_conns = 10000, .sctp_assocs = 1000, .sctp_streams = 16, .size = 1024,
	    .interval_ms = 500, .move_s = 5, .quiet_s = 3,
	};
	int no_netns = 0;
	static const struct option opts[] = {
	    {"mpa", 1, 0, 'm'},	     {"sctp", 1, 0, 's'},    {"streams", 1, 0, 'k'},
	    {"size", 1, 0, 'z'},     {"interval-ms", 1, 0, 'i'}, {"move-s", 1, 0, 'v'},
	    {"quiet-s", 1, 0, 'q'},  {"check", 1, 0, 'c'},   {"no-netns", 0, 0, 'n'},
	    {"help", 0, 0, 'h'},     {0, 0, 0, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		unsigned long v = optarg ? strtoul(optarg, NULL, 10) : 0;
		switch (c) {
		case 'm': o.mpa_conns = (unsigned)v; break;
		case 's': o.sctp_assocs = (unsigned)v; break;
		case 'k': o.sctp_streams = (unsigned)v; break;
		case 'z': o.size = (unsigned)v; break;
		case 'i': o.interval_ms = (unsigned)v; break;
		case 'v': o.move_s = (unsigned)v; break;
		case 'q': o.quiet_s = (unsigned)v; break;
		case 'c': o.check = 1; o.max_kib = strtod(optarg, NULL); break;
		case 'n': no_netns = 1; break;
		case 'h': usage(); return 0;
		default: usage(); return 2;
		}
	}
	if (optind < argc || !o.size || !o.interval_ms || o.sctp_streams == 0 ||
	    o.sctp_streams > 65535 || o.mpa_conns > 1000000 || o.sctp_assocs > 65535) {
		usage();
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	/* each side holds one descriptor per MPA connection */
	if (raise_nofile((rlim_t)o.mpa_conns + 256) < 0) {
		fprintf(stderr, "ddp-scale: cannot raise RLIMIT_NOFILE to %u\n", o.mpa_conns + 256);
		return 1;
	}
	if (!no_netns && geteuid() == 0 && netns_own() != 0)
		fprintf(stderr, "ddp-scale: no network namespace of its own: staying in this one\n");
	int failed = 0;
	if (o.mpa_conns)
		failed |= run_llp(&o, "mpa", "TCP", &scale_mpa_server, &scale_mpa_client,
				  o.mpa_conns, 1) != 0;
	if (o.sctp_assocs)
		failed |= run_llp(&o, "sctp", "UDP", &scale_sctp_server, &scale_sctp_client,
				  o.sctp_assocs, o.sctp_streams) != 0;
	print_table(&o);
	if (o.check) {
		int bad = check(&o);
		printf("check: %s\n", bad ? "FAILED" : "ok");
		return bad ? 1 : 0;
	}
	return failed;
}
