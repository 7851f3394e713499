/* ddp-perf: reading what iperf3 prints with -J (drv_iperf3.c). No JSON
 * library: the client takes four objects' numbers out of one result, the
 * server only needs to see where each test's object ends. Both work on
 * bytes that need not end in a NUL and never read outside them. */
#ifndef DDP_PERF_IPERF3_JSON_H
#define DDP_PERF_IPERF3_JSON_H

#include <stddef.h>

/* One client run's result: end.sum_received and
 * end.cpu_utilization_percent (percent of one CPU over the test). */
struct iperf3_result {
	double seconds, bytes, bits_per_second;
	double cpu_host, cpu_remote;
	char error[120]; /* iperf3's "error" string, "" if none */
};

/* Parse the JSON object iperf3 -c -J printed (len octets at s). 0 with
 * every field of out set; -1 when there is no complete sum_received with
 * finite, non-negative seconds, bytes and bits_per_second (out->error then
 * holds iperf3's own "error" text when it gave one). The CPU figures are 0
 * when missing. */
int iperf3_parse_result(const char *s, size_t len, struct iperf3_result *out);

/* iperf3 -s -J prints one pretty-printed object per test, its last line a
 * "}" alone. Feed the output in pieces of any size; returns how many such
 * lines the piece completed. */
struct iperf3_ends {
	int state; /* 0 line start, 1 the line so far is "}", 2 other */
};
int iperf3_count_ends(struct iperf3_ends *st, const char *s, size_t len);

#endif
