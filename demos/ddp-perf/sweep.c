/* ddp-perf --sweep (sweep.h). */
#include "sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "plot.h"
#include "topo.h"

/* A loss probability as linkem takes it ("0.1%" or a fraction): 0 or -1. */
static int loss_ok(const char *v)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v)
		return -1;
	if (*end == '%') {
		x /= 100;
		end++;
	}
	return *end || x < 0 || x > 1 ? -1 : 0;
}

/* A round trip ("10ms", "500us", "0.1s", "0") in nanoseconds, or -1. */
static long long rtt_ns(const char *v)
{
	char *end;
	double x = strtod(v, &end);
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	if (end == v || x < 0)
		return -1;
	if (!*end)
		return x == 0 ? 0 : -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			return x * units[i].ns > 20e9 ? -1 : (long long)(x * units[i].ns + 0.5);
	return -1;
}

int sweep_parse(struct sweep *sw, const char *arg)
{
	memset(sw, 0, sizeof(*sw));
	if (!strncmp(arg, "loss=", 5))
		sw->kind = SWEEP_LOSS;
	else if (!strncmp(arg, "rtt=", 4))
		sw->kind = SWEEP_RTT;
	else {
		fprintf(stderr, "ddp-perf: --sweep loss=P,P,.. or rtt=T,T,..\n");
		return -1;
	}
	snprintf(sw->buf, sizeof(sw->buf), "%s", strchr(arg, '=') + 1);
	for (char *t = strtok(sw->buf, ","); t; t = strtok(NULL, ",")) {
		if (sw->n == SWEEP_MAX) {
			fprintf(stderr, "ddp-perf: --sweep: at most %d values\n", SWEEP_MAX);
			return -1;
		}
		sw->label[sw->n] = t;
		if (sw->kind == SWEEP_LOSS) {
			if (loss_ok(t)) {
				fprintf(stderr, "ddp-perf: --sweep loss: %s is no probability\n", t);
				return -1;
			}
			snprintf(sw->item[sw->n], sizeof(sw->item[0]), "loss=%s", t);
		} else {
			long long ns = rtt_ns(t);
			if (ns < 0) {
				fprintf(stderr, "ddp-perf: --sweep rtt: %s is no time (NUMBER ns|us|ms|s)\n", t);
				return -1;
			}
			/* one-way delay rtt/2 each way, in the coarsest exact unit */
			long long half = ns / 2;
			if (half % 1000000 == 0)
				snprintf(sw->item[sw->n], sizeof(sw->item[0]), "delay=%lldms", half / 1000000);
			else if (half % 1000 == 0)
				snprintf(sw->item[sw->n], sizeof(sw->item[0]), "delay=%lldus", half / 1000);
			else
				snprintf(sw->item[sw->n], sizeof(sw->item[0]), "delay=%lldns", half);
		}
		sw->n++;
	}
	if (!sw->n) {
		fprintf(stderr, "ddp-perf: --sweep: no values\n");
		return -1;
	}
	return 0;
}

int sweep_rows(struct row *rows, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (rows[i].p.mode == MODE_UNTAGGED || rows[i].p.mode == MODE_TAGGED)
			rows[k++] = rows[i];
	return k;
}

/* A column's name: tcp, iperf3, usrsctp, mpa-u, mpa-t, sctp-u, sctp-t. */
static void col_name(const struct row *w, char *out, size_t len)
{
	if (raw_llp(w->p.llp))
		snprintf(out, len, "%s", w->p.llp);
	else
		snprintf(out, len, "%s-%c", w->p.llp, w->p.mode == MODE_TAGGED ? 't' : 'u');
}

/* One ratio cell: "0.95x", or "n/a" with the reason added to notes. */
static void ratio_cell(char *out, size_t len, const struct row *w, const struct row *b,
		       const char *point, const char *col, char *notes, size_t nlen)
{
	char txt[48];
	double q = report_ratio_text(txt, sizeof(txt), w, b);
	if (q >= 0) {
		snprintf(out, len, "%.2fx", q);
		return;
	}
	snprintf(out, len, "%s", txt[0] ? "n/a" : w->r.failed ? "-" : "");
	if (txt[0] && strlen(notes) + 80 < nlen)
		snprintf(notes + strlen(notes), nlen - strlen(notes), "  %s, %s: %s\n", point, col, txt);
}

static void print_group(const struct sweep *sw, const char *what, const char *base,
			struct row *const *sets, int g0, int g1)
{
	const struct row *t = &sets[0][g0];
	char notes[2048] = "", fails[2048] = "", name[24];
	printf("\nSweep of the %s over linkem (%s%s); %zu-octet messages, %d stream%s; MB/s (median "
	       "of %d samples of %.2f s)\n",
	       what, base ? base : "no other impairment", base ? ", plus the swept item" : "",
	       t->p.size, t->p.streams, t->p.streams > 1 ? "s" : "", REPS, t->p.duration);
	printf("%-8s", sw->kind == SWEEP_RTT ? "rtt" : "loss");
	for (int i = g0; i < g1; i++) {
		col_name(&sets[0][i], name, sizeof(name));
		printf(" %8s", name);
	}
	printf(" |");
	for (int i = g0; i < g1; i++) { /* ratio headers */
		const struct row *w = &sets[0][i];
		col_name(w, name, sizeof(name));
		if (!strcmp(w->p.llp, "mpa"))
			printf(" %10s/TCP", name);
		else if (!strcmp(w->p.llp, "sctp"))
			printf(" %10s/usr %10s/tcp", name, name);
	}
	printf("\n");
	for (int k = 0; k < sw->n; k++) {
		const struct row *rows = sets[k];
		int n = g1; /* every row of the set up to this group's end */
		printf("%-8s", sw->label[k]);
		for (int i = g0; i < g1; i++) {
			const struct row *w = &rows[i];
			if (w->r.failed || w->r.skipped) {
				printf(" %8s", w->r.failed ? "FAILED" : "n/a");
				col_name(w, name, sizeof(name));
				if (strlen(fails) + 200 < sizeof(fails))
					snprintf(fails + strlen(fails), sizeof(fails) - strlen(fails),
						 "  %s, %s: %s %s\n", sw->label[k], name,
						 w->r.failed ? "failed:" : "not run:", w->r.why);
			} else {
				printf(" %8.1f", row_mbps(w));
			}
		}
		printf(" |");
		for (int i = g0; i < g1; i++) {
			const struct row *w = &rows[i];
			char cell[16], col[32];
			col_name(w, name, sizeof(name));
			if (!strcmp(w->p.llp, "mpa")) {
				snprintf(col, sizeof(col), "%s/TCP", name);
				ratio_cell(cell, sizeof(cell), w, report_ratio_base(rows, n, w), sw->label[k],
					   col, notes, sizeof(notes));
				printf(" %14s", cell);
			} else if (!strcmp(w->p.llp, "sctp")) {
				snprintf(col, sizeof(col), "%s/usrsctp", name);
				ratio_cell(cell, sizeof(cell), w, report_ratio_base(rows, n, w), sw->label[k],
					   col, notes, sizeof(notes));
				printf(" %14s", cell);
				snprintf(col, sizeof(col), "%s/tcp", name);
				ratio_cell(cell, sizeof(cell), w, report_tcp_base(rows, n, w),
					   sw->label[k], col, notes, sizeof(notes));
				printf(" %14s", cell);
			}
		}
		printf("\n");
	}
	if (notes[0])
		printf("n/a, no ratio:\n%s", notes);
	if (fails[0])
		printf("not measured:\n%s", fails);
}

int sweep_run(const struct sweep *sw, const char *base, const struct row *tmpl, int n,
	      sweep_point_fn run, void *arg, const char *png)
{
	/* shared with the children that measure (each point runs in a
	 * forked child inside its namespaces) */
	size_t sz = (size_t)sw->n * (size_t)n * sizeof(struct row);
	struct row *all = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (all == MAP_FAILED)
		return 1;
	struct row *sets[SWEEP_MAX];
	int failed = 0, stopped = 0;
	for (int k = 0; k < sw->n; k++) {
		sets[k] = all + (size_t)k * n;
		memcpy(sets[k], tmpl, (size_t)n * sizeof(struct row));
		for (int i = 0; i < n; i++) { /* failed unless a child measures it */
			snprintf(sets[k][i].r.why, sizeof(sets[k][i].r.why), "its point's run ended first");
			sets[k][i].r.failed = 1;
		}
	}
	for (int k = 0; k < sw->n; k++) {
		char spec[512];
		snprintf(spec, sizeof(spec), "%s%s%s", base ? base : "", base ? ";" : "", sw->item[k]);
		fprintf(stderr, "ddp-perf: sweep %s=%s: link %s, %d rows\n",
			sw->kind == SWEEP_RTT ? "rtt" : "loss", sw->label[k], spec, n);
		int rc = run(spec, sets[k], n, arg);
		if (rc == TOPO_SKIP && k == 0) {
			munmap(all, sz);
			return TOPO_SKIP;
		}
		for (int i = 0; i < n; i++)
			failed |= sets[k][i].r.failed;
		failed |= rc != 0;
		if (rc > 128) { /* SIGINT/SIGTERM/SIGHUP (topo_netns_run): no more points */
			stopped = rc;
			break;
		}
	}
	const char *what = sw->kind == SWEEP_RTT ? "round trip (one-way delay rtt/2 each way)"
						 : "random loss (each packet, each direction)";
	for (int g0 = 0; g0 < n;) {
		int g1 = g0;
		while (g1 < n && tmpl[g1].group == tmpl[g0].group)
			g1++;
		print_group(sw, what, base, sets, g0, g1);
		g0 = g1;
	}
	printf("\nTCP: the stronger of tcp and iperf3 at that point (iperf3 when installed); usr: raw "
	       "usrsctp with the same settings.\nEach value ran in namespaces of its own joined by "
	       "linkem, MTU %u; the rows of a size and stream count took turns.\n",
	       tmpl[0].p.mtu ? tmpl[0].p.mtu : 1500);
	fflush(stdout);
	if (png) {
		char title[256];
		snprintf(title, sizeof(title), "libddp goodput against the %s%s%s",
			 sw->kind == SWEEP_RTT ? "round trip" : "random loss", base ? ", link " : "",
			 base ? base : "");
		if (plot_sweep(png, title, sw->kind == SWEEP_RTT ? "round trip" : "loss per packet",
			       sw->label, sw->n, (const struct row *const *)sets, n) != 0)
			fprintf(stderr, "ddp-perf: gnuplot failed, no plot written\n");
	}
	munmap(all, sz);
	return stopped ? stopped : failed ? 1 : 0;
}
