/* ddp-perf: JSON lines and the comparison table with its ratios (report.h). */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *mode_str(enum bench_mode m)
{
	return bench_mode_name(m);
}

int raw_llp(const char *llp)
{
	return !strcmp(llp, "tcp") || !strcmp(llp, "iperf3") || !strncmp(llp, "usrsctp", 7) ||
	       !strcmp(llp, "udp");
}

double row_mbps(const struct row *w)
{
	return w->r.secs > 0 ? (double)w->r.bytes / w->r.secs / 1e6 : 0;
}
static double mps(const struct row *w)
{
	return w->r.secs > 0 ? (double)w->r.msgs / w->r.secs : 0;
}

static double copied_per_byte(const struct row *w)
{
	return w->r.bytes ? (double)w->r.copied / (double)w->r.bytes : 0.0;
}

static double cpu_per_gb(const struct row *w)
{
	return w->r.bytes ? w->r.cpu / ((double)w->r.bytes / 1e9) : 0.0;
}

/* A row that measured something (not failed, not skipped). */
static int measured(const struct row *b)
{
	return b && !b->r.failed && !b->r.skipped;
}

const struct row *report_raw_row(const struct row *rows, int n, const struct row *w,
				 const char *raw)
{
	for (int i = 0; i < n; i++) {
		const struct row *b = &rows[i];
		if (strcmp(b->p.llp, raw) || b->p.size != w->p.size || b->p.streams != w->p.streams)
			continue;
		if (bench_mode_rtt(b->p.mode) != bench_mode_rtt(w->p.mode))
			continue;
		return b;
	}
	return NULL;
}

/* The raw row of that LLP a row is compared with: same size and stream
 * count, a round trip for a round trip; NULL unless it measured. */
static const struct row *baseline(const struct row *rows, int n, const struct row *w,
				  const char *raw)
{
	const struct row *b = report_raw_row(rows, n, w, raw);
	return measured(b) ? b : NULL;
}

const struct row *report_tcp_base(const struct row *rows, int n, const struct row *w)
{
	const struct row *t = baseline(rows, n, w, "tcp");
	if (bench_mode_rtt(w->p.mode))
		return t;
	const struct row *i = baseline(rows, n, w, "iperf3");
	return i && (!t || row_mbps(i) > row_mbps(t)) ? i : t;
}

/* The baseline of a DDP row's ratio: DDP/SCTP usrsctp; DDP/MPA kernel
 * TCP (report_tcp_base). NULL: none ran. */
static const struct row *ratio_base(const struct row *rows, int n, const struct row *w)
{
	if (!strcmp(w->p.llp, "sctp"))
		return baseline(rows, n, w, "usrsctp");
	if (strcmp(w->p.llp, "mpa"))
		return NULL;
	return report_tcp_base(rows, n, w);
}

/* Throughput of w over b; -1 when b stalled (below STALLED of w). */
static double ratio(const struct row *w, const struct row *b)
{
	double bm = row_mbps(b), wm = row_mbps(w);
	return bm <= 0 || bm < STALLED * wm ? -1 : wm / bm;
}

const struct row *report_ratio_base(const struct row *rows, int n, const struct row *w)
{
	const struct row *b = ratio_base(rows, n, w);
	if (b || (strcmp(w->p.llp, "sctp") && strcmp(w->p.llp, "mpa")))
		return b;
	/* none measured: the one that ran and failed, to say so */
	const struct row *t = report_raw_row(rows, n, w, !strcmp(w->p.llp, "sctp") ? "usrsctp" : "tcp");
	return t ? t : bench_mode_rtt(w->p.mode) ? NULL : report_raw_row(rows, n, w, "iperf3");
}

double report_ratio_text(char *out, size_t len, const struct row *w, const struct row *b)
{
	double q = -1;
	out[0] = 0;
	if (!b || !measured(w))
		return -1;
	if (b->r.failed)
		snprintf(out, len, "n/a (baseline failed)");
	else if (b->r.skipped)
		snprintf(out, len, "n/a (baseline not run)");
	else if (bench_mode_rtt(w->p.mode) ? b->r.rtt_us <= 0 : (q = ratio(w, b)) < 0)
		snprintf(out, len, "n/a (baseline stalled)");
	else if (bench_mode_rtt(w->p.mode))
		snprintf(out, len, "%.2fx", q = w->r.rtt_us / b->r.rtt_us);
	else
		snprintf(out, len, "%.2fx", q);
	return q;
}

/* The table's cell of w vs b: "" (no baseline), "n/a" (it stalled: *stalled
 * set), the ratio; round trips: w's over b's. */
static void ratio_cell(char *out, size_t len, const struct row *w, const struct row *b,
		       int *stalled)
{
	out[0] = 0;
	if (!b)
		return;
	if (bench_mode_rtt(w->p.mode)) {
		if (b->r.rtt_us > 0)
			snprintf(out, len, "%.2fx", w->r.rtt_us / b->r.rtt_us);
		return;
	}
	double q = ratio(w, b);
	if (q < 0)
		*stalled = 1;
	snprintf(out, len, q < 0 ? "n/a" : "%.2fx", q);
}

/* ,"NAME":ratio (null: stalled) */
static void json_ratio(const char *name, const struct row *w, const struct row *b)
{
	double q = bench_mode_rtt(w->p.mode) ? b->r.rtt_us > 0 ? w->r.rtt_us / b->r.rtt_us : -1
					      : ratio(w, b);
	if (q < 0)
		printf(",\"%s\":null", name);
	else
		printf(",\"%s\":%.4f", name, q);
}

/* The usrsctp a row ran over: this program's for usrsctp, usrsctp-stock
 * and sctp, the child's for usrsctp-system (NULL until it said); NULL for
 * the rows without usrsctp. */
static const char *usrsctp_of(const struct row *w)
{
	if (!strcmp(w->p.llp, "usrsctp-system"))
		return w->r.usrsctp[0] ? w->r.usrsctp : NULL;
	if (!strcmp(w->p.llp, "sctp") || !strncmp(w->p.llp, "usrsctp", 7))
		return bench_usrsctp_build();
	return NULL;
}

/* Under the table: which usrsctp the SCTP rows ran over. */
static void usrsctp_builds(const struct row *rows, int n)
{
	const struct row *sys = NULL;
	int own = 0;
	for (int i = 0; i < n; i++) {
		if (!strcmp(rows[i].p.llp, "usrsctp-system")) {
			if (!sys || (!sys->r.usrsctp[0] && rows[i].r.usrsctp[0]))
				sys = &rows[i];
		} else {
			own |= usrsctp_of(&rows[i]) != NULL;
		}
	}
	if (own)
		printf("usrsctp of usrsctp, usrsctp-stock and sctp: %s, built into this ddp-perf.\n",
		       bench_usrsctp_build());
	if (sys && sys->r.usrsctp[0])
		printf("usrsctp of usrsctp-system: %s, in %s (the usrsctp row's measurement).\n",
		       sys->r.usrsctp, sys->p.system_perf);
	else if (sys)
		printf("usrsctp of usrsctp-system: not measured (%s).\n",
		       sys->r.why[0] ? sys->r.why : "no result");
}

void report_json(const struct row *w, const struct report_info *ri)
{
	printf("{\"llp\":\"%s\",\"mode\":\"%s\",\"size\":%zu,\"streams\":%d,\"seconds\":%.3f,"
	       "\"mbytes_per_s\":%.2f,\"msgs_per_s\":%.1f,\"copied_bytes_per_payload_byte\":%.4f,"
	       "\"cpu_s_per_gb\":%.3f,\"rtt_us\":%.2f,\"tcp_cc\":\"%s\",\"no_crc\":%s,\"heap_trim\":%s,"
	       "\"topology\":\"%s\",\"mtu\":%u",
	       w->p.llp, mode_str(w->p.mode), w->p.size, w->p.streams, w->r.secs, row_mbps(w), mps(w),
	       copied_per_byte(w), cpu_per_gb(w), w->r.rtt_us, w->p.tcp_cc ? w->p.tcp_cc : "system",
	       w->p.no_crc ? "true" : "false", ri->heap_trim ? "true" : "false", ri->topology,
	       w->p.mtu);
	if (w->r.dgram)
		printf(",\"udp_payload\":%u", w->r.dgram);
	if (w->r.window)
		printf(",\"window_bytes\":%llu", (unsigned long long)w->r.window);
	if (usrsctp_of(w))
		printf(",\"usrsctp\":\"%s\"", usrsctp_of(w));
	/* a DDP row: the baseline of its ratio; DDP/MPA: both TCP baselines */
	const struct row *b = ri->rows ? ratio_base(ri->rows, ri->nrows, w) : NULL;
	if (b) {
		printf(",\"baseline\":\"%s\"", b->p.llp);
		json_ratio("ratio", w, b);
	}
	if (ri->rows && !strcmp(w->p.llp, "mpa") && !bench_mode_rtt(w->p.mode)) {
		static const char *const tcps[] = { "tcp", "iperf3" };
		for (int k = 0; k < 2; k++) {
			const struct row *t = baseline(ri->rows, ri->nrows, w, tcps[k]);
			char name[16];
			snprintf(name, sizeof(name), "vs_%s", tcps[k]);
			if (t)
				json_ratio(name, w, t);
		}
	}
	if (w->r.skipped)
		printf(",\"ok\":false,\"skipped\":true,\"error\":\"%s\"}\n", w->r.why);
	else
		printf(",\"ok\":%s%s%s%s}\n", w->r.failed ? "false" : "true",
		       w->r.failed ? ",\"error\":\"" : "", w->r.failed ? w->r.why : "",
		       w->r.failed ? "\"" : "");
	fflush(stdout);
}

/* Under the table: which row each DDP/MPA throughput ratio was taken
 * against (the stronger of tcp and iperf3 of its size and streams). */
static void mpa_baselines(const struct row *rows, int n)
{
	int any = 0;
	for (int i = 0; i < n; i++) {
		const struct row *w = &rows[i], *b;
		if (strcmp(w->p.llp, "mpa") || bench_mode_rtt(w->p.mode) ||
		    !(b = ratio_base(rows, n, w)))
			continue;
		int seen = 0; /* one entry per size and stream count */
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(rows[j].p.llp, "mpa") && !bench_mode_rtt(rows[j].p.mode) &&
			       rows[j].p.size == w->p.size && rows[j].p.streams == w->p.streams;
		if (seen)
			continue;
		printf("%s%zu x%d: %s %.1f MB/s", any ? "; " : "DDP/MPA ratios against: ", w->p.size,
		       w->p.streams, b->p.llp, row_mbps(b));
		any = 1;
	}
	if (any)
		printf(".\n");
}

static const char *sctp_cc_name(int cc)
{
#if defined(DDP_USRSCTP_PATCHED) && DDP_USRSCTP_PATCHED
	return cc ? bench_sctp_cc_name(cc)
	          : "the library's default (cubic; rfc4960 in the usrsctp-system row)";
#else
	return cc ? bench_sctp_cc_name(cc) : "the library's default (rfc4960)";
#endif
}

void report_table(const struct row *rows, int n, int reps, const struct report_info *ri)
{
	int any_stalled = 0, iperf3_na = 0;
	char sctp_buf_text[80] = "send 8 MiB, receive autotuned 1-8 MiB, the library's default";
	if (n > 0 && rows[0].p.sctp_buf)
		snprintf(sctp_buf_text, sizeof(sctp_buf_text), "%u octets each", rows[0].p.sctp_buf);
	printf("\n%-14s %-8s %7s %3s %10s %11s %9s %9s %9s %9s %9s\n", "llp", "mode", "size", "str",
	       "MB/s", "msgs/s", "ratio", "vs stock", "vs udp", "copied/B", "CPU s/GB");
	for (int i = 0; i < n; i++) {
		const struct row *w = &rows[i];
		char cell[16] = "", stock[16] = "", udp[16] = "", note[64] = "";
		int stalled = 0;
		const char *mode = raw_llp(w->p.llp) && !bench_mode_rtt(w->p.mode) ? "raw"
										: mode_str(w->p.mode);
		const struct row *b = ratio_base(rows, n, w);
		const struct row *fb = b ? NULL : report_ratio_base(rows, n, w);
		ratio_cell(cell, sizeof(cell), w, b, &stalled);
		if (fb && fb->r.failed) /* its baseline ran and failed: say so */
			snprintf(cell, sizeof(cell), "n/a");
		if (bench_mode_rtt(w->p.mode))
			snprintf(note, sizeof(note), "rtt %.1f us", w->r.rtt_us);
		else if (b && !strcmp(w->p.llp, "mpa"))
			snprintf(note, sizeof(note), "vs %s", b->p.llp);
		if (!strcmp(w->p.llp, "sctp") && !bench_mode_rtt(w->p.mode)) {
			ratio_cell(stock, sizeof(stock), w, baseline(rows, n, w, "usrsctp-stock"),
				   &stalled);
			ratio_cell(udp, sizeof(udp), w, baseline(rows, n, w, "udp"), &stalled);
		}
		if (w->r.dgram)
			snprintf(note, sizeof(note), "datagram %u", w->r.dgram);
		if (w->r.window)
			snprintf(note + strlen(note), sizeof(note) - strlen(note), "%swin %.3g MiB",
				 note[0] ? ", " : "", (double)w->r.window / (1 << 20));
		if (stalled)
			snprintf(note + strlen(note), sizeof(note) - strlen(note),
				 "%sn/a (baseline stalled)", note[0] ? ", " : "");
		else if (fb && fb->r.failed)
			snprintf(note + strlen(note), sizeof(note) - strlen(note),
				 "%sn/a (baseline failed)", note[0] ? ", " : "");
		any_stalled |= stalled;
		if (w->r.skipped) {
			iperf3_na |= !strcmp(w->p.llp, "iperf3");
			printf("%-14s %-8s %7zu %3d  n/a: %s\n", w->p.llp, mode, w->p.size, w->p.streams,
			       w->r.why);
			continue;
		}
		if (w->r.failed) {
			printf("%-14s %-8s %7zu %3d  FAILED: %s\n", w->p.llp, mode, w->p.size,
			       w->p.streams, w->r.why);
			continue;
		}
		printf("%-14s %-8s %7zu %3d %10.1f %11.0f %9s %9s %9s %9.4f %9.3f %s\n", w->p.llp, mode,
		       w->p.size, w->p.streams, row_mbps(w), mps(w), cell, stock, udp,
		       copied_per_byte(w), cpu_per_gb(w), note);
	}
	printf("\nratio: DDP/MPA vs the stronger of tcp and iperf3 of the same size and streams in "
	       "this run (the note says which;\ntcp: whole messages in writes of up to 128 KiB, "
	       "Nagle on, as iperf3 writes; iperf3: -l SIZE -P STREAMS, whole seconds, its own\n"
	       "count at the receiver), DDP/SCTP vs usrsctp (same settings); vs stock: DDP/SCTP vs "
	       "usrsctp with default settings;\nvs udp: DDP/SCTP vs raw UDP datagrams of the SCTP "
	       "packet size (sendmmsg/recvmmsg, no GSO; counted at the receiver, drops not).\n"
	       "rtt ratio: DDP round trip / raw round trip over tcp (lower is better). CPU s/GB counts %s.\n"
	       "write, read: RDMA Write / RDMA Read over libddp-rdmap, ratio vs the same raw baseline;"
	       " read-rtt: one 64-octet RDMA Read at a time, vs the raw round trip.\n"
	       "%s%d samples of %.1f s, taken in turns with the other rows of its size and stream count.\n"
	       "TCP congestion control of tcp, iperf3 and mpa: %s (--tcp-cc).\n"
	       "SCTP congestion control of sctp and usrsctp: %s (--sctp-cc), socket buffers %s (--sctp-buf).\n"
	       "Heap: %s.\n"
	       "Topology: %s.\n",
	       ri->cpu, reps > 1 ? "Each row: the median of " : "One run: ", reps,
	       n > 0 ? rows[0].p.duration : 0.0,
	       n > 0 && rows[0].p.tcp_cc ? rows[0].p.tcp_cc : "system default",
	       sctp_cc_name(n > 0 ? rows[0].p.sctp_cc : 0), sctp_buf_text,
	       ri->heap_trim ? "glibc's default trimming (--heap-trim)"
			     : "freed memory kept for reuse, M_TRIM_THRESHOLD 64 MiB (--heap-trim: glibc's default)",
	       ri->where);
	mpa_baselines(rows, n);
	usrsctp_builds(rows, n);
	if (iperf3_na)
		printf("iperf3: not installed (apt-get install iperf3), so tcp is the only TCP "
		       "baseline.\n");
	if (any_stalled)
		printf("n/a (baseline stalled): the baseline moved under %.0f %% of the row's MB/s, "
		       "no ratio.\n",
		       STALLED * 100);
	fflush(stdout);
}
