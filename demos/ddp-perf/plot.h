/* ddp-perf: the gnuplot charts (plot.c). Both write a gnuplot script and
 * its data to temporary files and run gnuplot on them; 0, or -1 when
 * gnuplot failed or is not installed (no file written then). */
#ifndef DDP_PERF_PLOT_H
#define DDP_PERF_PLOT_H

#include "report.h"

/* The comparison: one panel per message size and stream count (and one for
 * the RDMA rows); in each, the MPA family (tcp, iperf3, DDP/MPA) in blue
 * and the SCTP family (usrsctp, usrsctp-stock, udp, DDP/SCTP) in red, the
 * raw baselines in lighter shades beside their DDP bars, each DDP bar
 * labelled with its ratio to its baseline. A failed, skipped or stalled
 * row is an empty dashed slot saying so. Log y when the rates span more
 * than PLOT_LOG_SPAN. Round trips are left to the table. */
int plot_comparison(const struct row *rows, int n, const char *png, const char *topology);

/* A sweep: goodput against the swept value (xlabels, npoints of them), one
 * panel per size and stream count; sets[i] holds the n rows measured at
 * point i (the same rows in the same order at every point). DDP lines
 * solid, their raw baselines dashed in a lighter shade of the same hue. */
int plot_sweep(const char *png, const char *title, const char *xname, char *const *xlabels,
	       int npoints, const struct row *const *sets, int n);

#define PLOT_LOG_SPAN 20.0 /* max / min MB/s above which y is logarithmic */

#endif
