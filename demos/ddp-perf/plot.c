/* ddp-perf: the gnuplot charts (plot.h). */
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The bars of a panel, left to right: the MPA family, a gap, the SCTP
 * family. Baselines a lighter shade of their DDP row's hue. */
struct slot {
	const char *llp;
	int mode;	    /* -1: a raw row (any mode but a round trip) */
	const char *label;  /* under the bar */
	const char *colour;
};

static const struct slot slots[] = {
	{ "tcp", -1, "tcp", "#9ecae1" },
	{ "iperf3", -1, "iperf3", "#c6dbef" },
	{ "mpa", MODE_UNTAGGED, "mpa u", "#2171b5" },
	{ "mpa", MODE_TAGGED, "mpa t", "#2171b5" },
	{ "mpa", MODE_WRITE, "mpa write", "#2171b5" },
	{ "mpa", MODE_READ, "mpa read", "#2171b5" },
	{ NULL, 0, NULL, NULL }, /* gap */
	{ "usrsctp", -1, "usrsctp", "#fcae91" },
	{ "usrsctp-stock", -1, "stock", "#fee0d2" },
	{ "usrsctp-system", -1, "system", "#fdd0a2" },
	{ "udp", -1, "udp", "#d9d9d9" },
	{ "sctp", MODE_UNTAGGED, "sctp u", "#cb181d" },
	{ "sctp", MODE_TAGGED, "sctp t", "#cb181d" },
	{ "sctp", MODE_WRITE, "sctp write", "#cb181d" },
	{ "sctp", MODE_READ, "sctp read", "#cb181d" },
};
#define NSLOTS ((int)(sizeof(slots) / sizeof(slots[0])))

static int is_slot(const struct slot *s, const struct row *w)
{
	if (!s->llp || strcmp(s->llp, w->p.llp) || bench_mode_rtt(w->p.mode))
		return 0;
	return s->mode < 0 || s->mode == (int)w->p.mode;
}

static int good(const struct row *w)
{
	return !w->r.failed && !w->r.skipped && row_mbps(w) > 0;
}

/* Run gnuplot on script; remove the temporary files. */
static int run_gnuplot(const char *script, const char *dat)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "gnuplot %s", script);
	int rc = system(cmd);
	unlink(script);
	unlink(dat);
	return rc == 0 ? 0 : -1;
}

static FILE *tmpfile_named(char *name)
{
	int fd = mkstemp(name);
	return fd < 0 ? NULL : fdopen(fd, "w");
}

/* The data file and the gnuplot script, both or neither (-1). */
static int tmpfiles(char *dat, FILE **d, char *gp, FILE **g)
{
	*d = tmpfile_named(dat);
	*g = tmpfile_named(gp);
	if (*d && *g)
		return 0;
	if (*d)
		fclose(*d), unlink(dat);
	if (*g)
		fclose(*g), unlink(gp);
	return -1;
}

/* The y range over every good row of rows: log when it spans decades.
 * The lowest value drawn is the lowest at or above floor_frac of the
 * highest: a comparison leaves out rows that stalled beside the others
 * (STALLED); a sweep's points span decades by design (loss, round trip),
 * so there every rate above zero is in range (floor_frac 0). */
static int y_range(const struct row *const *sets, int nsets, int n, double floor_frac, double *lo,
		   double *hi)
{
	double mn = 0, mx = 0;
	for (int pass = 0; pass < 2; pass++) /* the max, then the min of what is drawn */
		for (int k = 0; k < nsets; k++)
			for (int i = 0; i < n; i++) {
				const struct row *w = &sets[k][i];
				double v = row_mbps(w);
				if (!good(w) || bench_mode_rtt(w->p.mode))
					continue;
				if (pass == 0)
					mx = v > mx ? v : mx;
				else if (v > 0 && v >= floor_frac * mx)
					mn = mn == 0 || v < mn ? v : mn;
			}
	int log = mn > 0 && mx / mn > PLOT_LOG_SPAN;
	*lo = log ? pow(10, floor(log10(mn)) - 0.3) : 0;
	*hi = log ? mx * 4 : mx * 1.25 + 1;
	return log;
}

int plot_comparison(const struct row *rows, int n, const char *png, const char *topology)
{
	int groups[64], ng = 0; /* a panel per group with throughput rows */
	for (int i = 0; i < n && ng < 64; i++)
		if (!bench_mode_rtt(rows[i].p.mode) && (ng == 0 || groups[ng - 1] != rows[i].group))
			groups[ng++] = rows[i].group;
	if (ng == 0)
		return 0;
	char dat[] = "/tmp/ddp-perf-dat-XXXXXX", gp[] = "/tmp/ddp-perf-gp-XXXXXX";
	FILE *d, *g;
	if (tmpfiles(dat, &d, gp, &g))
		return -1;
	const struct row *set[1] = { rows };
	double lo, hi;
	int log = y_range(set, 1, n, STALLED, &lo, &hi);
	int cols = ng < 3 ? ng : 3, nrow = (ng + cols - 1) / cols;
	fprintf(g, "set terminal pngcairo size %d,%d font ',9'\nset output '%s'\n", 520 * cols + 40,
		400 * nrow + 60, png);
	fprintf(g, "set multiplot layout %d,%d title \"libddp throughput, MB/s (ddp-perf, %s)\\n"
		   "blue: DDP/MPA beside raw TCP; red: DDP/SCTP beside raw usrsctp (lighter: the raw "
		   "baselines; u untagged, t tagged); label: DDP / its baseline\"\n",
		nrow, cols, topology);
	fprintf(g, "unset key\nset grid ytics\nset xtics scale 0 font ',8'\nset ylabel 'MB/s'\n"
		   "set style fill solid 1.0 border rgb '#555555'\n");
	fprintf(g, "%s\nset yrange [%g:%g]\n", log ? "set logscale y" : "unset logscale y", lo, hi);
	int block = 0;
	for (int k = 0; k < ng; k++) {
		/* the slots this panel uses, in order, with x positions */
		double x[NSLOTS];
		const struct row *at[NSLOTS] = { 0 };
		double pos = 0;
		int used = 0;
		const struct row *any = NULL;
		for (int s = 0; s < NSLOTS; s++) {
			x[s] = -1;
			for (int i = 0; i < n; i++)
				if (rows[i].group == groups[k] && is_slot(&slots[s], &rows[i]))
					at[s] = &rows[i];
			if (!slots[s].llp) {
				pos += used ? 0.6 : 0;
				continue;
			}
			if (at[s]) {
				x[s] = pos++;
				used++;
				any = at[s];
			}
		}
		double panel_max = 0;
		for (int s = 0; s < NSLOTS; s++)
			if (at[s] && good(at[s]) && row_mbps(at[s]) > panel_max)
				panel_max = row_mbps(at[s]);
		int nb = 0, ne = 0, nl = 0;
		/* block 1: bars; 2: empty slots; 3: labels */
		for (int pass = 0; pass < 3; pass++) {
			for (int s = 0; s < NSLOTS; s++) {
				const struct row *w = at[s];
				if (!w)
					continue;
				int raw = raw_llp(w->p.llp);
				int stalled = raw && good(w) && row_mbps(w) < STALLED * panel_max;
				int bar = good(w) && !stalled;
				double v = row_mbps(w);
				if (pass == 0 && bar) {
					fprintf(d, "%g %g %g %g %g %g 0x%s\n", x[s], v, x[s] - 0.4,
						x[s] + 0.4, log ? lo : 0, v, slots[s].colour + 1);
					nb++;
				} else if (pass == 1 && !bar) {
					fprintf(d, "%g %g %g %g %g %g\n", x[s], hi, x[s] - 0.4, x[s] + 0.4,
						log ? lo : 0, log ? sqrt(lo * panel_max) : panel_max / 2);
					ne++;
				} else if (pass == 2) {
					char txt[48] = "";
					double y = bar ? v : log ? pow(lo * lo * panel_max, 1.0 / 3) : panel_max / 4;
					if (!bar)
						snprintf(txt, sizeof(txt), "%s", w->r.failed ? "failed"
										 : w->r.skipped ? "not run"
												: "stalled");
					else if (!raw && report_ratio_text(txt, sizeof(txt), w,
							report_ratio_base(rows, n, w)) < 0 && txt[0])
						snprintf(txt, sizeof(txt), "n/a\\n(baseline\\n%s)",
							 strstr(txt, "stalled") ? "stalled"
							 : strstr(txt, "failed") ? "failed" : "not run");
					if (!txt[0])
						continue;
					if (strchr(txt, '\\')) /* three lines: their bottom above the bar */
						y = log ? y * pow(hi / lo, 0.07) : y + 0.07 * hi;
					fprintf(d, "%g %g \"%s\" %d\n", x[s], y, txt, bar);
					nl++;
				}
			}
			if (pass == 0 && !nb)
				fprintf(d, "0 NaN 0 0 0 0 0\n");
			if (pass == 1 && !ne)
				fprintf(d, "0 NaN 0 0 0 0\n");
			if (pass == 2 && !nl)
				fprintf(d, "0 NaN \"\" 0\n");
			fprintf(d, "\n\n");
		}
		if (bench_mode_rdma(any->p.mode))
			fprintf(g, "set title 'RDMA Write / Read, %zu octets, %d stream%s'\n", any->p.size,
				any->p.streams, any->p.streams > 1 ? "s" : "");
		else
			fprintf(g, "set title '%zu-octet messages, %d stream%s'\n", any->p.size,
				any->p.streams, any->p.streams > 1 ? "s" : "");
		fprintf(g, "set xrange [-0.6:%g]\nset xtics (", pos - 0.4);
		for (int s = 0, c = 0; s < NSLOTS; s++)
			if (x[s] >= 0)
				fprintf(g, "%s\"%s\" %g", c++ ? ", " : "", slots[s].label, x[s]);
		fprintf(g, ")\n");
		fprintf(g, "plot '%s' index %d using 1:2:3:4:5:6:7 with boxxyerror lc rgb variable, \\\n"
			   "  '' index %d using 1:2:3:4:5:6 with boxxyerror fs empty border lc rgb "
			   "'#666666' lc rgb '#666666' dt 2, \\\n"
			   "  '' index %d using 1:2:(stringcolumn(3)) with labels offset 0,0.8 font ',8'"
			   "\n",
			dat, block, block + 1, block + 2);
		block += 3;
	}
	fprintf(g, "unset multiplot\n");
	fclose(d);
	fclose(g);
	return run_gnuplot(gp, dat);
}

/* A sweep's series: the (llp, mode) pairs of a group, and how each is drawn. */
static void series_style(const struct row *w, char *out, size_t len)
{
	int raw = raw_llp(w->p.llp), mpa_family = !strcmp(w->p.llp, "mpa") ||
						  !strcmp(w->p.llp, "tcp") || !strcmp(w->p.llp, "iperf3");
	const char *colour = mpa_family ? raw ? "#6baed6" : "#08519c"
				 : raw	    ? "#fb6a4a"
					    : "#a50f15";
	int pt = !strcmp(w->p.llp, "iperf3") ? 4 : w->p.mode == MODE_TAGGED ? 5 : 7;
	snprintf(out, len, "lc rgb '%s' dt %d lw %d pt %d ps 1.2", colour, raw ? 2 : 1, raw ? 2 : 3, pt);
}

int plot_sweep(const char *png, const char *title, const char *xname, char *const *xlabels,
	       int npoints, const struct row *const *sets, int n)
{
	if (npoints < 1 || n < 1)
		return 0;
	char dat[] = "/tmp/ddp-perf-dat-XXXXXX", gp[] = "/tmp/ddp-perf-gp-XXXXXX";
	FILE *d, *g;
	if (tmpfiles(dat, &d, gp, &g))
		return -1;
	const struct row *rows = sets[0];
	int ng = 0;
	for (int i = 0; i < n; i++)
		ng += i == 0 || rows[i].group != rows[i - 1].group;
	double lo, hi;
	int log = y_range(sets, npoints, n, 0, &lo, &hi);
	int cols = ng < 2 ? ng : 2, nrow = (ng + cols - 1) / cols;
	fprintf(g, "set terminal pngcairo size %d,%d font ',9'\nset output '%s'\n", 640 * cols + 40,
		440 * nrow + 60, png);
	fprintf(g, "set multiplot layout %d,%d title \"%s\\nsolid: DDP (blue MPA, red SCTP); "
		   "dashed, lighter: the raw baselines (tcp, iperf3; usrsctp)\"\n",
		nrow, cols, title);
	fprintf(g, "set key outside right top font ',8'\nset grid\nset ylabel 'MB/s'\n"
		   "set xlabel '%s'\nset xrange [-0.3:%g]\n%s\nset yrange [%g:%g]\n",
		xname, npoints - 0.7, log ? "set logscale y" : "unset logscale y", lo, hi);
	int block = 0;
	for (int g0 = 0; g0 < n;) {
		int g1 = g0;
		while (g1 < n && rows[g1].group == rows[g0].group)
			g1++;
		/* one data block per group: label, x, then a column per row */
		for (int k = 0; k < npoints; k++) {
			fprintf(d, "\"%s\" %d", xlabels[k], k);
			for (int i = g0; i < g1; i++) {
				const struct row *w = &sets[k][i];
				if (good(w))
					fprintf(d, " %.3f", row_mbps(w));
				else
					fprintf(d, " NaN");
			}
			fprintf(d, "\n");
		}
		fprintf(d, "\n\n");
		fprintf(g, "set title '%zu-octet messages, %d stream%s'\nplot ", rows[g0].p.size,
			rows[g0].p.streams, rows[g0].p.streams > 1 ? "s" : "");
		for (int i = g0; i < g1; i++) {
			char st[96];
			series_style(&rows[i], st, sizeof(st));
			fprintf(g, "%s'%s' index %d using 2:%d:xtic(1) with linespoints %s title '%s%s%s'",
				i > g0 ? ", \\\n  " : "", dat, block, 3 + i - g0, st, rows[i].p.llp,
				raw_llp(rows[i].p.llp) ? "" : " ",
				raw_llp(rows[i].p.llp) ? "" : mode_str(rows[i].p.mode));
		}
		fprintf(g, "\n");
		block++;
		g0 = g1;
	}
	fprintf(g, "unset multiplot\n");
	fclose(d);
	fclose(g);
	return run_gnuplot(gp, dat);
}
