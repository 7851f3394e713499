/* ddp-perf --sweep: the comparison's throughput rows measured once per
 * value of one path parameter, each value a fresh pair of namespaces
 * joined by linkem (sweep.c), then one table per message size and stream
 * count (goodput per row against the value, and the DDP ratios) and, with
 * --plot, goodput against the value (plot_sweep).
 *
 *   --sweep loss=0,0.1%,1%,2%     random loss per packet, each direction
 *   --sweep rtt=1ms,10ms,50ms     round trip: one-way delay rtt/2 each way
 *
 * A --link SPEC is the base every value is added to (as a part of its own,
 * so the swept item overrides the base's). */
#ifndef DDP_PERF_SWEEP_H
#define DDP_PERF_SWEEP_H

#include "report.h"

#define SWEEP_MAX 8

enum sweep_kind { SWEEP_NONE, SWEEP_LOSS, SWEEP_RTT };

struct sweep {
	enum sweep_kind kind;
	int n;
	char *label[SWEEP_MAX]; /* the values as given ("0.1%", "10ms") */
	char item[SWEEP_MAX][40]; /* linkem's item ("loss=0.1%", "delay=5ms") */
	char buf[256];
};

/* "loss=V,V,.." or "rtt=T,T,..": 0, or -1 with the reason on stderr. */
int sweep_parse(struct sweep *sw, const char *arg);
/* Keep the rows a sweep measures (the throughput rows: no RDMA, no round
 * trips), in place; the count kept. */
int sweep_rows(struct row *rows, int n);

/* Runs the rows at one point: the link SPEC, the rows to fill in. Returns
 * a process exit status (TOPO_SKIP: the namespaces cannot be made). */
typedef int (*sweep_point_fn)(const char *spec, struct row *rows, int n, void *arg);

/* Measure tmpl's n rows at every point (base: --link SPEC or NULL), print
 * the tables, plot to png when not NULL. 0, 1 (a row failed), TOPO_SKIP,
 * or 128 + the signal that stopped it (SIGINT, SIGTERM, SIGHUP: the point
 * running ends, no further point starts, the tables show what ran). */
int sweep_run(const struct sweep *sw, const char *base, const struct row *tmpl, int n,
	      sweep_point_fn run, void *arg, const char *png);

#endif
