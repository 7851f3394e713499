/* ddp-perf: the output of runs (report.c): JSON lines and the comparison
 * table with its ratios (the plots: plot.h). */
#ifndef DDP_PERF_REPORT_H
#define DDP_PERF_REPORT_H

#include "bench.h"

#define REPS 3 /* comparison: interleaved samples per row, median kept */

struct row {
	struct bench_params p;
	struct bench_result r;		/* the reported (median) sample */
	struct bench_result s[REPS];	/* comparison samples */
	int group;			/* rows measured together (size, streams) */
};

/* What every line of output says about the run as a whole. */
struct report_info {
	const char *topology;	/* loopback-1proc, loopback-2proc,
				 * netns-veth-mtuN, remote */
	const char *where;	/* one line under the table: the topology */
	const char *cpu;	/* which ends "CPU s/GB" counts */
	int heap_trim;
	const struct row *rows;	/* every row of the run: the JSON line of a
				 * DDP row names its baselines */
	int nrows;
};

/* A baseline is stalled below this share of the row compared with it: no
 * ratio then (a near-zero denominator says nothing about the row). */
#define STALLED 0.01

const char *mode_str(enum bench_mode m);
/* A raw baseline (tcp, iperf3, usrsctp*, udp), not DDP. */
int raw_llp(const char *llp);
double row_mbps(const struct row *w);
void report_json(const struct row *w, const struct report_info *ri);
void report_table(const struct row *rows, int n, int reps, const struct report_info *ri);
/* The raw row of LLP raw at w's size and stream count (a round trip for a
 * round trip), measured or not; NULL: none in the run. */
const struct row *report_raw_row(const struct row *rows, int n, const struct row *w,
				 const char *raw);
/* Kernel TCP at w's size and stream count: the stronger of the tcp and
 * iperf3 rows that measured (the round trip: tcp, iperf3 has none); NULL:
 * neither measured. */
const struct row *report_tcp_base(const struct row *rows, int n, const struct row *w);
/* The baseline of a DDP row's ratio: DDP/SCTP usrsctp, DDP/MPA the stronger
 * of tcp and iperf3 (a failed or skipped one when neither measured); NULL
 * for a raw row or when none ran. */
const struct row *report_ratio_base(const struct row *rows, int n, const struct row *w);
/* w over its baseline b as text: "0.95x", "n/a (baseline stalled)" (b
 * moved under STALLED of w), "n/a (baseline failed)", "n/a (baseline not
 * run)", "" (no b, or w itself did not measure). Returns the ratio, or -1
 * when there is none: never a quotient of a stalled baseline. */
double report_ratio_text(char *out, size_t len, const struct row *w, const struct row *b);

#endif
