/* ddp-xfer --bench: a transfer's throughput next to its ceilings.
 *
 *   ddp-xfer --bench [--llp mpa|sctp|both] [--streams N] [--chunk OCTETS]
 *                    [--depth N] [--repeat N] [--cpus S,R | --cpus none]
 *                    [--addr A] [--port P] [--send-ns NS --recv-ns NS]
 *                    [--mtu N] [--perf PATH | --perf none] [--prog PATH] FILE
 *
 * Ceilings: one core's SHA-256 rate (libcrypto over an in-memory buffer of
 * --chunk octets: the whole-file digest is sequential, so no transfer can
 * beat it), and, when ddp-perf is found (next to this program, or --perf),
 * `ddp-perf --mode tagged` with the same LLP, message size = chunk and
 * stream count, run as two processes like the transfer. Each transfer is
 * a receiver and a sender started from this program (sender on CPU S,
 * receiver on CPU R; with --send-ns/--recv-ns inside those network
 * namespaces, through `ip netns exec`), timed from the sender's start to
 * its exit; both ends must print the same digest (--prog: transfers by
 * another ddp-xfer, e.g. an older build, for before/after tables). Every number is the
 * best of --repeat runs (others' load only ever slows a run down).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "digest.h"

#define MIB 1048576.0

static struct {
	const char *file, *addr, *send_ns, *recv_ns, *perf, *prog;
	char self[PATH_MAX], perf_buf[PATH_MAX + 16];
	unsigned streams, depth, repeat, mtu;
	unsigned long chunk;
	int port, cpu_s, cpu_r;
	char tmp[64];
} b;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run argv (through `ip netns exec ns` when ns) on cpu (< 0: any), stdout
 * and stderr to files <tmp>.<tag>.out/.err. Returns the pid or -1. */
static pid_t spawn(const char *ns, int cpu, const char *tag, char **argv)
{
	char out[128], err[128];
	snprintf(out, sizeof(out), "%s.%s.out", b.tmp, tag);
	snprintf(err, sizeof(err), "%s.%s.err", b.tmp, tag);
	/* the last run's lines must not be taken for this one's */
	unlink(out);
	unlink(err);
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (o < 0 || e < 0)
		_exit(126);
	dup2(o, 1);
	dup2(e, 2);
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	char *av[48];
	int n = 0;
	if (ns) {
		av[n++] = "ip", av[n++] = "netns", av[n++] = "exec", av[n++] = (char *)ns;
	}
	for (int i = 0; argv[i] && n < 47; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	execvp(av[0], av);
	_exit(127);
}

/* The text of <tmp>.<tag>.<ext> (static buffer). */
static const char *slurp(const char *tag, const char *ext)
{
	static char buf[8192];
	char path[128];
	snprintf(path, sizeof(path), "%s.%s.%s", b.tmp, tag, ext);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
	return buf;
}

/* Wait until <tag>.err holds `what` (0) or pid ended / 10 s passed (-1). */
static int wait_for(pid_t pid, const char *tag, const char *what)
{
	for (int i = 0; i < 500; i++) {
		if (strstr(slurp(tag, "err"), what))
			return 0;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(20000);
	}
	return -1;
}

/* Exit status of pid, waiting at most `secs` (then SIGKILL, -1). */
static int reap(pid_t pid, double secs)
{
	int st;
	for (double t0 = now(); now() - t0 < secs; usleep(5000))
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

static void num_arg(char *dst, size_t n, unsigned long v)
{
	snprintf(dst, n, "%lu", v);
}

/* One transfer: MiB/s, or < 0 with the reason printed. */
static double transfer(const char *llp, int port)
{
	char listen[96], connect[96], streams[16], chunk[24], depth[16], mtu[16];
	snprintf(listen, sizeof(listen), "%s:%d", b.addr, port);
	snprintf(connect, sizeof(connect), "%s:%d", b.addr, port);
	num_arg(streams, sizeof(streams), b.streams);
	num_arg(chunk, sizeof(chunk), b.chunk);
	num_arg(depth, sizeof(depth), b.depth);
	num_arg(mtu, sizeof(mtu), b.mtu);
	char *ra[] = { (char *)b.prog, "recv", "--llp", (char *)llp, "--listen", listen, "--chunk", chunk,
		       "--depth", depth, b.mtu ? "--mtu" : NULL, mtu, NULL };
	char *sa[] = { (char *)b.prog, "send", "--llp", (char *)llp, "--connect", connect, "--streams",
		       streams, "--chunk", chunk, "--depth", depth, (char *)b.file,
		       b.mtu ? "--mtu" : NULL, mtu, NULL };
	pid_t rp = spawn(b.recv_ns, b.cpu_r, "recv", ra);
	if (rp < 0 || wait_for(rp, "recv", "recv: listening")) {
		fprintf(stderr, "bench: %s receiver did not start: %s", llp, slurp("recv", "err"));
		reap(rp, 1);
		return -1;
	}
	double t0 = now();
	pid_t sp = spawn(b.send_ns, b.cpu_s, "send", sa);
	int ss = sp < 0 ? -1 : reap(sp, 600);
	double t = now() - t0;
	int rs = reap(rp, 10);
	char sline[200], rline[200];
	snprintf(sline, sizeof(sline), "%s", slurp("send", "out"));
	snprintf(rline, sizeof(rline), "%s", slurp("recv", "out"));
	if (ss || rs || strncmp(sline, "sha256 ", 7) || strcmp(sline, rline)) {
		fprintf(stderr, "bench: %s transfer failed (sender %d, receiver %d)\n", llp, ss, rs);
		fprintf(stderr, "sender: %s", slurp("send", "err"));
		fprintf(stderr, "receiver: %s", slurp("recv", "err"));
		return -1;
	}
	struct stat st;
	return stat(b.file, &st) ? -1 : (double)st.st_size / t / MIB;
}

/* ddp-perf --mode tagged, two processes: MiB/s of payload, or < 0. */
static double perf_ceiling(const char *llp, int port)
{
	char listen[96], streams[16], size[24], mtu[16];
	snprintf(listen, sizeof(listen), "%s:%d", b.addr, port);
	num_arg(streams, sizeof(streams), b.streams);
	num_arg(size, sizeof(size), b.chunk);
	num_arg(mtu, sizeof(mtu), b.mtu);
	char *va[] = { (char *)b.perf, "--server", "--llp", (char *)llp, "--listen", listen,
		       b.mtu ? "--mtu" : NULL, mtu, NULL };
	char *ca[] = { (char *)b.perf, "--connect", listen, "--llp", (char *)llp, "--mode", "tagged",
		       "--size", size, "--streams", streams, "--duration", "2", "--json",
		       b.mtu ? "--mtu" : NULL, mtu, NULL };
	pid_t vp = spawn(b.recv_ns, b.cpu_r, "psrv", va);
	if (vp < 0 || wait_for(vp, "psrv", "server on")) {
		fprintf(stderr, "bench: ddp-perf %s server did not start: %s", llp,
			slurp("psrv", "err"));
		reap(vp, 1);
		return -1;
	}
	pid_t cp = spawn(b.send_ns, b.cpu_s, "pcli", ca);
	int cs = cp < 0 ? -1 : reap(cp, 60);
	kill(vp, SIGINT);
	reap(vp, 5);
	const char *j = strstr(slurp("pcli", "out"), "\"msgs_per_s\":");
	if (cs || !j || !strstr(j, "\"ok\":true")) {
		fprintf(stderr, "bench: ddp-perf %s failed: %s", llp, slurp("pcli", "err"));
		return -1;
	}
	return strtod(j + 13, NULL) * (double)b.chunk / MIB;
}

static double best(double (*run)(const char *, int), const char *llp, int port)
{
	double v = -1;
	for (unsigned i = 0; i < b.repeat; i++) {
		double r = run(llp, port);
		if (r < 0)
			return -1;
		if (r > v)
			v = r;
	}
	return v;
}

static int usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: ddp-xfer --bench [--llp mpa|sctp|both] [--streams N (8)] [--chunk OCTETS]\n"
		"         [--depth N] [--repeat N (1)] [--cpus SEND,RECV (0,1) | --cpus none]\n"
		"         [--addr A (127.0.0.1)] [--port P (29640; P..P+3 are used)]\n"
		"         [--send-ns NS --recv-ns NS (ip netns exec)] [--mtu N (SCTP)]\n"
		"         [--perf PATH-to-ddp-perf | --perf none]\n"
		"         [--prog PATH (the ddp-xfer that transfers, e.g. an older build)] FILE\n");
	return rc;
}

int xf_bench_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "llp", 1, 0, 'l' },	  { "streams", 1, 0, 's' }, { "chunk", 1, 0, 'k' },
		{ "depth", 1, 0, 'd' },	  { "repeat", 1, 0, 'r' },  { "cpus", 1, 0, 'c' },
		{ "addr", 1, 0, 'a' },	  { "port", 1, 0, 'p' },    { "send-ns", 1, 0, 'S' },
		{ "recv-ns", 1, 0, 'R' }, { "mtu", 1, 0, 'm' },	    { "perf", 1, 0, 'P' },
		{ "prog", 1, 0, 'X' },	  { "help", 0, 0, 'h' },    { 0, 0, 0, 0 },
	};
	const char *llps = "both";
	int c;
	b.streams = 8, b.depth = 4, b.repeat = 1, b.chunk = 1ul << 20, b.port = 29640;
	b.addr = "127.0.0.1";
	b.cpu_s = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 0 : -1;
	b.cpu_r = b.cpu_s < 0 ? -1 : 1;
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': llps = optarg; break;
		case 's': b.streams = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'k': b.chunk = strtoul(optarg, NULL, 0); break;
		case 'd': b.depth = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'r': b.repeat = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'c':
			if (!strcmp(optarg, "none"))
				b.cpu_s = b.cpu_r = -1;
			else if (sscanf(optarg, "%d,%d", &b.cpu_s, &b.cpu_r) != 2)
				return usage(2);
			break;
		case 'a': b.addr = optarg; break;
		case 'p': b.port = atoi(optarg); break;
		case 'S': b.send_ns = optarg; break;
		case 'R': b.recv_ns = optarg; break;
		case 'm': b.mtu = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'P': b.perf = optarg; break;
		case 'X': b.prog = optarg; break;
		case 'h': return usage(0);
		default: return usage(2);
		}
	}
	int want_mpa = !strcmp(llps, "mpa") || !strcmp(llps, "both");
	int want_sctp = !strcmp(llps, "sctp") || !strcmp(llps, "both");
	if (optind != argc - 1 || (!want_mpa && !want_sctp) || !b.streams || !b.depth ||
	    !b.repeat || !b.chunk || b.port <= 0 || b.port > 65532)
		return usage(2);
	b.file = argv[optind];
	ssize_t n = readlink("/proc/self/exe", b.self, sizeof(b.self) - 1);
	if (n <= 0) {
		fprintf(stderr, "bench: cannot find my own program\n");
		return 1;
	}
	b.self[n] = 0;
	if (!b.prog)
		b.prog = b.self;
	if (!b.perf) { /* ddp-perf beside ddp-xfer (BUILD/bin) */
		snprintf(b.perf_buf, sizeof(b.perf_buf), "%s", b.self);
		strcpy(strrchr(b.perf_buf, '/') + 1, "ddp-perf");
		b.perf = access(b.perf_buf, X_OK) == 0 ? b.perf_buf : "none";
	}
	int perf = strcmp(b.perf, "none") != 0;
	snprintf(b.tmp, sizeof(b.tmp), "/tmp/ddp-xfer-bench.%d", (int)getpid());
	struct stat st;
	if (stat(b.file, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "bench: %s: not a readable regular file\n", b.file);
		return 1;
	}

	double sha = 0;
	for (unsigned i = 0; i < b.repeat; i++) {
		double r = xf_sha256_rate(b.chunk, 0.5) / MIB;
		if (r > sha)
			sha = r;
	}
	if (sha <= 0) {
		fprintf(stderr, "bench: SHA-256 failed (libcrypto)\n");
		return 1;
	}
	printf("ddp-xfer --bench: %s (%.1f MiB), %u streams, chunk %lu, depth %u, best of %u,"
	       " CPUs send %d recv %d%s%s%s%s\n",
	       b.file, (double)st.st_size / MIB, b.streams, b.chunk, b.depth, b.repeat, b.cpu_s,
	       b.cpu_r, b.send_ns ? ", netns " : "", b.send_ns ? b.send_ns : "",
	       b.prog != b.self ? ", transfers by " : "", b.prog != b.self ? b.prog : "");
	printf("SHA-256, one core (libcrypto EVP, %lu-octet buffer): %.1f MiB/s\n", b.chunk, sha);
	printf("%-5s %12s %16s %10s %10s\n", "llp", "xfer MiB/s", "ddp-perf MiB/s", "ceiling",
	       "ratio");
	int rc = 0;
	for (int k = 0; k < 2; k++) {
		const char *llp = k ? "sctp" : "mpa";
		if (!(k ? want_sctp : want_mpa))
			continue;
		double x = best(transfer, llp, b.port + k);
		double p = perf ? best(perf_ceiling, llp, b.port + 2 + k) : -1;
		double ceil = p > 0 && p < sha ? p : sha;
		if (x < 0)
			rc = 1;
		char xs[32] = "(failed)", ps[32] = "(not run)", rs[32] = "-";
		if (x > 0) {
			snprintf(xs, sizeof(xs), "%.1f", x);
			snprintf(rs, sizeof(rs), "%.2f", x / ceil);
		}
		if (p > 0)
			snprintf(ps, sizeof(ps), "%.1f", p);
		else if (perf)
			snprintf(ps, sizeof(ps), "(failed)");
		printf("%-5s %12s %16s %10.1f %10s\n", llp, xs, ps, ceil, rs);
		fflush(stdout);
	}
	if (!perf)
		printf("(no ddp-perf: run `ddp-perf --llp L --mode tagged --size %lu --streams %u"
		       " --duration 2` as server and client for the transport ceiling)\n",
		       b.chunk, b.streams);
	static const char *const tags[] = { "recv", "send", "psrv", "pcli" };
	for (unsigned i = 0; i < 4; i++) {
		char path[128];
		snprintf(path, sizeof(path), "%s.%s.out", b.tmp, tags[i]);
		unlink(path);
		path[strlen(path) - 3] = 0;
		strcat(path, "err");
		unlink(path);
	}
	return rc;
}
