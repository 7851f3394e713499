/*
 * ddp-perf: DDP over MPA/TCP and over SCTP next to the raw transports, on one
 * libevent loop, measured in one run so the ratios mean something on a noisy
 * machine. With no arguments it runs the whole comparison and prints a table.
 *
 *   ddp-perf                         the comparison (about 90 s)
 *   ddp-perf --llp L --mode M --size N --streams N --duration S   one run
 *   ddp-perf --json ...              one JSON object per run per line
 *   ddp-perf --plot FILE.png         also draw the comparison (gnuplot)
 *   ddp-perf --server --listen A:P   serve one LLP for a remote client
 *   ddp-perf --connect A:P ...       run against a remote server
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <malloc.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define REPS 3 /* comparison: interleaved samples per row, median kept */
#define HEAP_KEEP (64u << 20) /* M_TRIM_THRESHOLD unless --heap-trim */

/* usrsctp takes an mbuf from malloc for every packet in and out. glibc's
 * default gives the top of the heap back to the kernel whenever 128 KiB
 * are free there, and the next packets fault those pages in again:
 * 45,000-100,000 page faults in a 2 s usrsctp or DDP/SCTP run (`perf stat
 * -e page-faults`), 4-14 % of the throughput, and different from run to
 * run. Every row runs with the heap kept (the same for the raw baselines
 * and DDP); --heap-trim keeps glibc's default to show the difference. */
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

struct row {
	struct bench_params p;
	struct bench_result r;		/* the reported (median) sample */
	struct bench_result s[REPS];	/* comparison samples */
	int group;			/* rows measured together (size, streams) */
};

static const struct bench_driver *drivers[] = {
	&drv_tcp, &drv_mpa, &drv_sctp, &drv_usrsctp, &drv_usrsctp_stock,
};

static const struct bench_driver *find_driver(const char *name)
{
	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		if (strcmp(drivers[i]->name, name) == 0)
			return drivers[i];
	return NULL;
}

static const char *mode_str(enum bench_mode m)
{
	return m == MODE_TAGGED ? "tagged" : m == MODE_RTT ? "rtt" : "untagged";
}

static int raw_llp(const char *llp)
{
	return !strcmp(llp, "tcp") || !strncmp(llp, "usrsctp", 7);
}

static void run_one(struct event_base *base, struct row *row)
{
	const struct bench_driver *d = find_driver(row->p.llp);
	memset(&row->r, 0, sizeof(row->r));
	if (!d) {
		bench_fail(&row->r, "no driver '%s' in this build", row->p.llp);
		return;
	}
	d->run(base, &row->p, &row->r);
	if (row->p.progress)
		fprintf(stderr, "\r%100s\r", "");
}

static double mbps(const struct row *w)
{
	return w->r.secs > 0 ? (double)w->r.bytes / w->r.secs / 1e6 : 0;
}
static double mps(const struct row *w)
{
	return w->r.secs > 0 ? (double)w->r.msgs / w->r.secs : 0;
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
			double va = w->p.mode == MODE_RTT ? a->rtt_us : a->secs > 0 ? a->bytes / a->secs : 0;
			double vb = w->p.mode == MODE_RTT ? b->rtt_us : b->secs > 0 ? b->bytes / b->secs : 0;
			if (va <= vb)
				break;
			int t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	w->r = w->s[idx[REPS / 2]];
}

static void print_json(const struct row *w)
{
	printf("{\"llp\":\"%s\",\"mode\":\"%s\",\"size\":%zu,\"streams\":%d,\"seconds\":%.3f,"
	       "\"mbytes_per_s\":%.2f,\"msgs_per_s\":%.1f,\"copied_bytes_per_payload_byte\":%.4f,"
	       "\"cpu_s_per_gb\":%.3f,\"rtt_us\":%.2f,\"tcp_cc\":\"%s\",\"no_crc\":%s,\"heap_trim\":%s,\"ok\":%s%s%s%s}\n",
	       w->p.llp, mode_str(w->p.mode), w->p.size, w->p.streams, w->r.secs, mbps(w), mps(w),
	       w->r.bytes ? (double)w->r.copied / (double)w->r.bytes : 0.0,
	       w->r.bytes ? w->r.cpu / ((double)w->r.bytes / 1e9) : 0.0, w->r.rtt_us,
	       w->p.tcp_cc ? w->p.tcp_cc : "system", w->p.no_crc ? "true" : "false",
	       heap_trim ? "true" : "false", w->r.failed ? "false" : "true", w->r.failed ? ",\"error\":\"" : "",
	       w->r.failed ? w->r.why : "", w->r.failed ? "\"" : "");
}

/* The raw baseline a DDP row is compared with. */
static const struct row *baseline(const struct row *rows, int n, const struct row *w,
				  const char *raw)
{
	for (int i = 0; i < n; i++) {
		const struct row *b = &rows[i];
		if (strcmp(b->p.llp, raw) || b->p.size != w->p.size || b->p.streams != w->p.streams)
			continue;
		if ((b->p.mode == MODE_RTT) != (w->p.mode == MODE_RTT))
			continue;
		return b;
	}
	return NULL;
}

static void print_table(const struct row *rows, int n, int reps)
{
	printf("\n%-13s %-8s %7s %3s %10s %11s %9s %9s %9s %9s\n", "llp", "mode", "size", "str",
	       "MB/s", "msgs/s", "ratio", "vs stock", "copied/B", "CPU s/GB");
	for (int i = 0; i < n; i++) {
		const struct row *w = &rows[i];
		char ratio[16] = "", stock[16] = "", rtt[32] = "";
		const char *raw = !strcmp(w->p.llp, "mpa") ? "tcp"
				  : !strcmp(w->p.llp, "sctp") ? "usrsctp" : NULL;
		const struct row *b = raw ? baseline(rows, n, w, raw) : NULL;
		if (w->p.mode == MODE_RTT) {
			snprintf(rtt, sizeof(rtt), "rtt %.1f us", w->r.rtt_us);
			if (b && b->r.rtt_us > 0)
				snprintf(ratio, sizeof(ratio), "%.2fx", w->r.rtt_us / b->r.rtt_us);
		} else if (b && mbps(b) > 0) {
			snprintf(ratio, sizeof(ratio), "%.2fx", mbps(w) / mbps(b));
		}
		if (!strcmp(w->p.llp, "sctp") && w->p.mode != MODE_RTT) {
			const struct row *s = baseline(rows, n, w, "usrsctp-stock");
			if (s && mbps(s) > 0)
				snprintf(stock, sizeof(stock), "%.2fx", mbps(w) / mbps(s));
		}
		if (w->r.failed) {
			printf("%-13s %-8s %7zu %3d  FAILED: %s\n", w->p.llp,
			       raw_llp(w->p.llp) && w->p.mode != MODE_RTT ? "raw" : mode_str(w->p.mode),
			       w->p.size, w->p.streams, w->r.why);
			continue;
		}
		printf("%-13s %-8s %7zu %3d %10.1f %11.0f %9s %9s %9.4f %9.3f %s\n", w->p.llp,
		       raw_llp(w->p.llp) && w->p.mode != MODE_RTT ? "raw" : mode_str(w->p.mode),
		       w->p.size, w->p.streams, mbps(w), mps(w), ratio, stock,
		       w->r.bytes ? (double)w->r.copied / (double)w->r.bytes : 0.0,
		       w->r.bytes ? w->r.cpu / ((double)w->r.bytes / 1e9) : 0.0, rtt);
	}
	printf("\nratio: DDP/MPA vs tcp, DDP/SCTP vs usrsctp (same settings); vs stock: DDP/SCTP vs "
	       "usrsctp with default settings.\nrtt ratio: DDP round trip / raw round trip "
	       "(lower is better). CPU s/GB counts both ends (one process).\n"
	       "%s%d samples of %.1f s, taken in turns with the other rows of its size and stream count.\n"
	       "TCP congestion control of tcp and mpa: %s (--tcp-cc).\n"
	       "Heap: %s.\n",
	       reps > 1 ? "Each row: the median of " : "One run: ", reps,
	       n > 0 ? rows[0].p.duration : 0.0,
	       n > 0 && rows[0].p.tcp_cc ? rows[0].p.tcp_cc : "system default",
	       heap_trim ? "glibc's default trimming (--heap-trim)"
			 : "freed memory kept for reuse, M_TRIM_THRESHOLD 64 MiB (--heap-trim: glibc's default)");
}

static int plot(const struct row *rows, int n, const char *png)
{
	char dat[] = "/tmp/ddp-perf-XXXXXX";
	int fd = mkstemp(dat);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "w");
	for (int i = 0; i < n; i++) {
		const struct row *w = &rows[i];
		if (w->r.failed || w->p.mode == MODE_RTT)
			continue;
		fprintf(f, "\"%s %s %zuK x%d\" %.1f\n", w->p.llp,
			raw_llp(w->p.llp) ? "raw" : mode_str(w->p.mode), w->p.size / 1024, w->p.streams,
			mbps(w));
	}
	fclose(f);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "gnuplot -e \"set terminal png size 1400,700; set output '%s'; set style fill solid;"
		 " set boxwidth 0.8; set ylabel 'MB/s'; set xtics rotate by -60 font ',8';"
		 " set title 'libddp loopback throughput (ddp-perf)'; unset key;"
		 " plot '%s' using 0:2:xtic(1) with boxes\"",
		 png, dat);
	int rc = system(cmd);
	unlink(dat);
	return rc;
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
	fprintf(stderr, "usage: ddp-perf [--llp {mpa,sctp,tcp,usrsctp,usrsctp-stock}] "
			"[--mode {untagged,tagged,rtt}] [--size N] [--streams N] [--duration S]\n"
			"                [--json] [--plot FILE.png] [--server --listen A:P | --connect A:P]\n"
			"                [--mtu N (SCTP packet size across hosts)]\n"
			"                [--tcp-cc NAME|system (TCP congestion control of tcp and mpa,\n"
			"                 default cubic)] [--no-crc (mpa, both ends: no MPA CRC)]\n"
			"                [--heap-trim (glibc's default heap trimming; default: keep)]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "llp", 1, 0, 'l' },	    { "mode", 1, 0, 'm' },    { "size", 1, 0, 's' },
		{ "streams", 1, 0, 'n' },   { "duration", 1, 0, 'd' }, { "json", 0, 0, 'j' },
		{ "plot", 1, 0, 'p' },	    { "server", 0, 0, 'S' },  { "listen", 1, 0, 'L' },
		{ "connect", 1, 0, 'C' },   { "help", 0, 0, 'h' },    { "mtu", 1, 0, 'M' },
		{ "tcp-cc", 1, 0, 'T' },   { "no-crc", 0, 0, 'R' },    { "heap-trim", 0, 0, 'H' },
		{ 0, 0, 0, 0 }
	};
	struct bench_params one = { .llp = NULL, .size = 65536, .streams = 1, .duration = 2.0 };
	int json = 0, single = 0, c;
	const char *png = NULL, *cc_want = NULL;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': one.llp = optarg; single = 1; break;
		case 'm':
			one.mode = !strcmp(optarg, "tagged") ? MODE_TAGGED
				   : !strcmp(optarg, "rtt") ? MODE_RTT : MODE_UNTAGGED;
			if (strcmp(optarg, "tagged") && strcmp(optarg, "rtt") && strcmp(optarg, "untagged")) {
				usage();
				return 2;
			}
			single = 1;
			break;
		case 's': one.size = strtoul(optarg, NULL, 0); single = 1; break;
		case 'n': one.streams = atoi(optarg); single = 1; break;
		case 'd': one.duration = atof(optarg); break;
		case 'j': json = 1; break;
		case 'p': png = optarg; break;
		case 'S': one.role = 1; break;
		case 'M': one.mtu = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'T': cc_want = optarg; break;
		case 'R': one.no_crc = 1; break;
		case 'H': heap_trim = 1; break;
		case 'L':
		case 'C':
			if (parse_addr(optarg, &one)) {
				fprintf(stderr, "ddp-perf: bad address %s (want IPv4:PORT)\n", optarg);
				return 2;
			}
			if (c == 'C')
				one.role = 2;
			break;
		default: usage(); return 2;
		}
	}
	if (one.size == 0 || one.size > (1u << 24) || one.streams < 1 || one.streams > 1024 ||
	    one.duration <= 0) {
		usage();
		return 2;
	}
	if (one.no_crc && (!one.llp || strcmp(one.llp, "mpa"))) {
		fprintf(stderr, "ddp-perf: --no-crc applies to one --llp mpa run only\n");
		return 2;
	}
	one.tcp_cc = pick_cc(cc_want);
	heap_setup();
	struct event_base *base = event_base_new();
	if (!base)
		return 1;
	int progress = isatty(2) && !json;
	struct row *rows;
	int n = 0;
	if (single || one.role) {
		rows = calloc(1, sizeof(*rows));
		rows[0].p = one;
		if (!rows[0].p.llp)
			rows[0].p.llp = "mpa";
		rows[0].p.progress = progress;
		n = 1;
	} else {
		static const size_t sizes[] = { 1024, 16384, 65536 };
		static const int streams[] = { 1, 16 };
		static const char *raws[] = { "tcp", "usrsctp", "usrsctp-stock" };
		static const char *ddps[] = { "mpa", "sctp" };
		rows = calloc(64, sizeof(*rows));
		/* 1.5 s per row in REPS interleaved samples */
		double dur = (one.duration == 2.0 ? 1.5 : one.duration) / REPS;
		int g = 0;
		for (int si = 0; si < 3; si++)
			for (int ni = 0; ni < 2; ni++, g++) {
				for (int k = 0; k < 3; k++) {
					rows[n].group = g;
					rows[n++].p = (struct bench_params){ .llp = raws[k], .size = sizes[si],
									     .streams = streams[ni], .duration = dur };
				}
				for (int k = 0; k < 2; k++)
					for (int m = 0; m < 2; m++) {
						rows[n].group = g;
						rows[n++].p = (struct bench_params){
							.llp = ddps[k], .mode = m ? MODE_TAGGED : MODE_UNTAGGED,
							.size = sizes[si], .streams = streams[ni], .duration = dur };
					}
			}
		const char *rtts[] = { "tcp", "mpa", "usrsctp", "sctp" };
		for (int k = 0; k < 4; k++) {
			rows[n].group = g;
			rows[n++].p = (struct bench_params){ .llp = rtts[k], .mode = MODE_RTT, .size = 64,
							     .streams = 1, .duration = dur };
		}
		for (int i = 0; i < n; i++) {
			rows[i].p.progress = progress;
			rows[i].p.tcp_cc = one.tcp_cc;
		}
	}
	int failed = 0;
	if (single || one.role) {
		run_one(base, &rows[0]);
		failed = rows[0].r.failed;
		if (json)
			print_json(&rows[0]);
	} else {
		/* the comparison: the rows of a group (raw baselines and DDP
		 * at one size and stream count) take turns, REPS rounds, so
		 * slow drifts of the machine hit them alike; each row reports
		 * its median sample */
		for (int g0 = 0; g0 < n;) {
			int g1 = g0;
			while (g1 < n && rows[g1].group == rows[g0].group)
				g1++;
			for (int rep = 0; rep < REPS; rep++)
				for (int i = g0; i < g1; i++) {
					run_one(base, &rows[i]);
					if (rows[i].r.failed) {
						/* one retry: a transient set-up failure on a
						 * loaded machine should not hide the other
						 * rows; a second failure stays a failure */
						fprintf(stderr, "ddp-perf: %s %s %zu x%d failed (%s), "
								"retrying once\n",
							rows[i].p.llp, mode_str(rows[i].p.mode),
							rows[i].p.size, rows[i].p.streams, rows[i].r.why);
						run_one(base, &rows[i]);
					}
					rows[i].s[rep] = rows[i].r;
				}
			for (int i = g0; i < g1; i++) {
				pick_median(&rows[i]);
				failed |= rows[i].r.failed;
				if (json)
					print_json(&rows[i]);
			}
			g0 = g1;
		}
	}
	if (!json && one.role != 1)
		print_table(rows, n, single || one.role ? 1 : REPS);
	if (png && plot(rows, n, png) != 0)
		fprintf(stderr, "ddp-perf: gnuplot failed, no plot written\n");
	free(rows);
	event_base_free(base);
	return failed ? 1 : 0;
}
