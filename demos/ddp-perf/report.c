/* ddp-perf: JSON lines, the comparison table and the plot (report.h). */
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
	return !strcmp(llp, "tcp") || !strncmp(llp, "usrsctp", 7) || !strcmp(llp, "udp");
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
	printf(",\"ok\":%s%s%s%s}\n", w->r.failed ? "false" : "true",
	       w->r.failed ? ",\"error\":\"" : "", w->r.failed ? w->r.why : "",
	       w->r.failed ? "\"" : "");
	fflush(stdout);
}

/* The raw baseline a row is compared with. */
static const struct row *baseline(const struct row *rows, int n, const struct row *w,
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

static void ratio_to(char *out, size_t len, const struct row *rows, int n, const struct row *w,
		     const char *raw)
{
	const struct row *b = baseline(rows, n, w, raw);
	if (b && !b->r.failed && row_mbps(b) > 0)
		snprintf(out, len, "%.2fx", row_mbps(w) / row_mbps(b));
}

void report_table(const struct row *rows, int n, int reps, const struct report_info *ri)
{
	printf("\n%-13s %-8s %7s %3s %10s %11s %9s %9s %9s %9s %9s\n", "llp", "mode", "size", "str",
	       "MB/s", "msgs/s", "ratio", "vs stock", "vs udp", "copied/B", "CPU s/GB");
	for (int i = 0; i < n; i++) {
		const struct row *w = &rows[i];
		char ratio[16] = "", stock[16] = "", udp[16] = "", note[32] = "";
		const char *raw = !strcmp(w->p.llp, "mpa") ? "tcp"
				  : !strcmp(w->p.llp, "sctp") ? "usrsctp" : NULL;
		const char *mode = raw_llp(w->p.llp) && !bench_mode_rtt(w->p.mode) ? "raw"
										: mode_str(w->p.mode);
		if (bench_mode_rtt(w->p.mode)) {
			const struct row *b = raw ? baseline(rows, n, w, raw) : NULL;
			snprintf(note, sizeof(note), "rtt %.1f us", w->r.rtt_us);
			if (b && b->r.rtt_us > 0)
				snprintf(ratio, sizeof(ratio), "%.2fx", w->r.rtt_us / b->r.rtt_us);
		} else if (raw) {
			ratio_to(ratio, sizeof(ratio), rows, n, w, raw);
		}
		if (!strcmp(w->p.llp, "sctp") && !bench_mode_rtt(w->p.mode)) {
			ratio_to(stock, sizeof(stock), rows, n, w, "usrsctp-stock");
			ratio_to(udp, sizeof(udp), rows, n, w, "udp");
		}
		if (w->r.dgram)
			snprintf(note, sizeof(note), "datagram %u", w->r.dgram);
		if (w->r.failed) {
			printf("%-13s %-8s %7zu %3d  FAILED: %s\n", w->p.llp, mode, w->p.size,
			       w->p.streams, w->r.why);
			continue;
		}
		printf("%-13s %-8s %7zu %3d %10.1f %11.0f %9s %9s %9s %9.4f %9.3f %s\n", w->p.llp, mode,
		       w->p.size, w->p.streams, row_mbps(w), mps(w), ratio, stock, udp,
		       copied_per_byte(w), cpu_per_gb(w), note);
	}
	printf("\nratio: DDP/MPA vs tcp, DDP/SCTP vs usrsctp (same settings); vs stock: DDP/SCTP vs "
	       "usrsctp with default settings;\nvs udp: DDP/SCTP vs raw UDP datagrams of the SCTP "
	       "packet size (sendmmsg/recvmmsg, no GSO; counted at the receiver, drops not).\n"
	       "rtt ratio: DDP round trip / raw round trip (lower is better). CPU s/GB counts %s.\n"
	       "write, read: RDMA Write / RDMA Read over libddp-rdmap, ratio vs the same raw baseline;"
	       " read-rtt: one 64-octet RDMA Read at a time, vs the raw round trip.\n"
	       "%s%d samples of %.1f s, taken in turns with the other rows of its size and stream count.\n"
	       "TCP congestion control of tcp and mpa: %s (--tcp-cc).\n"
	       "Heap: %s.\n"
	       "Topology: %s.\n",
	       ri->cpu, reps > 1 ? "Each row: the median of " : "One run: ", reps,
	       n > 0 ? rows[0].p.duration : 0.0,
	       n > 0 && rows[0].p.tcp_cc ? rows[0].p.tcp_cc : "system default",
	       ri->heap_trim ? "glibc's default trimming (--heap-trim)"
			     : "freed memory kept for reuse, M_TRIM_THRESHOLD 64 MiB (--heap-trim: glibc's default)",
	       ri->where);
	fflush(stdout);
}

int report_plot(const struct row *rows, int n, const char *png, const struct report_info *ri)
{
	char dat[] = "/tmp/ddp-perf-XXXXXX";
	int fd = mkstemp(dat);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "w");
	for (int i = 0; i < n; i++) {
		const struct row *w = &rows[i];
		if (w->r.failed || bench_mode_rtt(w->p.mode))
			continue;
		fprintf(f, "\"%s %s %zuK x%d\" %.1f\n", w->p.llp,
			raw_llp(w->p.llp) ? "raw" : mode_str(w->p.mode), w->p.size / 1024, w->p.streams,
			row_mbps(w));
	}
	fclose(f);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "gnuplot -e \"set terminal png size 1400,700; set output '%s'; set style fill solid;"
		 " set boxwidth 0.8; set ylabel 'MB/s'; set xtics rotate by -60 font ',8';"
		 " set title 'libddp throughput (ddp-perf, %s)'; unset key;"
		 " plot '%s' using 0:2:xtic(1) with boxes\"",
		 png, ri->topology, dat);
	int rc = system(cmd);
	unlink(dat);
	return rc;
}
