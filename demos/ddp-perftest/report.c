/* perftest's output (perftest_parameters.h formats, print_report_bw,
 * print_full_bw_report, print_report_lat), column for column, so that
 * scripts that parse perftest's tables parse ours. Times are CLOCK_MONOTONIC
 * nanoseconds where perftest counts cycles. */
#include "perftest.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RESULT_LINE                                                                                \
	"-------------------------------------------------------------------------------------"    \
	"--\n"
#define RESULT_FMT                                                                                 \
	" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
#define RESULT_FMT_G                                                                               \
	" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
#define RESULT_FMT_LAT                                                                             \
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "    \
	"t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] "
#define REPORT_FMT " %-7lu    %-10" PRIu64 "       %-7.2lf            %-7.2lf\t\t   %-7.6lf"
#define REPORT_FMT_EXT                                                                             \
	" %-7lu    %" PRIu64 "           %-7.6lf            %-7.6lf            %-7.6lf"
#define REPORT_FMT_LAT                                                                             \
	" %-7lu %" PRIu64                                                                          \
	"          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f"                 \
	"\t\t%-7.2f \t\t%-7.2f"
#define LAT_MEASURE_TAIL 2   /* perftest drops the two largest samples */
#define PEAK_STEP        100 /* perftest's default CQ moderation: peak windows end here */

static const char *verb(const struct pt_opts *o)
{
	return o->test == PT_SEND_BW ? "Send" : pt_is_read(o) ? "RDMA_Read" : "RDMA_Write";
}

void pt_print_line(void)
{
	printf(RESULT_LINE);
}

void pt_print_header(const struct pt_opts *o)
{
	printf(RESULT_LINE);
	printf("                    %s %s Test\n", verb(o), pt_is_bw(o) ? "BW" : "Latency");
	printf(" Dual-port       : OFF\t\tDevice         : libddp\n");
	printf(" Number of qps   : %d\t\tTransport type : IW\n", o->qps);
	printf(" Connection type : RC\t\tUsing SRQ      : OFF\n");
	printf(" LLP             : %s\n", o->sctp ? "SCTP (RFC 5043)" : "MPA/TCP (RFC 5044)");
	if (!o->server || !pt_is_bw(o))
		printf(" TX depth        : %d\n", o->tx_depth);
	if (o->test == PT_SEND_BW && o->server)
		printf(" RX depth        : %d\n", o->rx_depth);
	if (pt_is_bw(o))
		printf(" CQ Moderation   : %d\n", 1);
	if (pt_is_read(o))
		printf(" Outstand reads  : %d\n", o->out_reads);
	else
		printf(" Max inline data : 0[B]\n");
	printf(" rdma_cm QPs\t : ON\n");
	printf(" Data ex. method : rdma_cm\n");
	printf(RESULT_LINE);
}

void pt_print_table_head(const struct pt_opts *o)
{
	printf(RESULT_LINE);
	if (pt_is_bw(o))
		printf("%s\n", o->gbits ? RESULT_FMT_G : RESULT_FMT);
	else
		printf("%s\n", RESULT_FMT_LAT);
}

void pt_bw_report(const struct pt_opts *o, uint64_t size, uint64_t n, uint64_t t0, uint64_t t1,
                  const uint64_t *posted, const uint64_t *completed, struct pt_report *r)
{
	double factor = o->gbits ? 125000000.0 : 1048576.0;
	double secs = t1 > t0 ? (double)(t1 - t0) / 1e9 : 1e-9;
	r->size = size;
	r->iters = n;
	r->bw_avg = (double)size * (double)n / (secs * factor);
	r->msg_rate = (double)n / (secs * 1e6);
	r->bw_peak = 0; /* perftest prints 0 when it has no peak (noPeak) */
	if (!posted || !completed || n == 0)
		return;
	/* print_report_bw: the fastest window from a post to a later
	 * completion, per message */
	double best = secs * 1e9;
	for (uint64_t i = 0; i < n; i++) {
		for (uint64_t j = (i / PEAK_STEP + 1) * PEAK_STEP - 1; j < n; j += PEAK_STEP) {
			double t = (double)(completed[j] - posted[i]) / (double)(j - i + 1);
			if (t < best)
				best = t;
		}
		if (n % PEAK_STEP) {
			double t = (double)(completed[n - 1] - posted[i]) / (double)(n - i);
			if (t < best)
				best = t;
		}
	}
	if (best > 0)
		r->bw_peak = (double)size * 1e9 / (best * factor);
}

void pt_print_bw(const struct pt_opts *o, const struct pt_report *r)
{
	int ext = r->bw_avg < 0.1 && o->gbits;
	printf(ext ? REPORT_FMT_EXT : REPORT_FMT, (unsigned long)r->size, r->iters, r->bw_peak,
	       r->bw_avg, r->msg_rate);
	printf("\n");
	fflush(stdout);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int pt_print_lat(const struct pt_opts *o, uint64_t size, uint64_t iters, const uint64_t *posted,
                 int rtt_factor)
{
	if (iters < 3 + LAT_MEASURE_TAIL)
		return pt_fail("-n %" PRIu64 " is too few samples for a latency table", iters);
	uint64_t cnt = iters - 1;
	uint64_t *d = malloc(cnt * sizeof(*d));
	if (!d)
		return pt_fail("out of memory");
	for (uint64_t i = 0; i < cnt; i++)
		d[i] = posted[i + 1] - posted[i];
	qsort(d, cnt, sizeof(*d), cmp_u64);
	cnt -= LAT_MEASURE_TAIL;
	double q = 1000.0 * rtt_factor; /* ns per usec, round trips halved */
	double median =
	    (cnt - 1) % 2 ? (double)(d[cnt / 2] + d[cnt / 2 - 1]) / 2 : (double)d[cnt / 2];
	double sum = 0, var = 0;
	for (uint64_t i = 0; i < cnt; i++)
		sum += d[i] / q;
	double avg = sum / (double)cnt;
	for (uint64_t i = 0; i < cnt; i++)
		var += (avg - d[i] / q) * (avg - d[i] / q);
	uint64_t i99 = (uint64_t)ceil((double)cnt * 0.99),
	         i999 = (uint64_t)ceil((double)cnt * 0.999);
	printf(REPORT_FMT_LAT, (unsigned long)size, iters, d[0] / q, d[cnt] / q, median / q, avg,
	       sqrt(var / (double)cnt), d[i99] / q, d[i999] / q);
	printf("\n");
	fflush(stdout);
	free(d);
	(void)o;
	return 0;
}
