/*
 * fuzz_iperf3_json: how ddp-perf reads iperf3's -J output (its iperf3 row).
 * Any input either yields no result or one with finite, non-negative
 * numbers, never reading outside the input (the copy below has no NUL);
 * counting the ends of the server's objects gives the same number whether
 * the output comes whole or in pieces of any size.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../demos/ddp-perf/iperf3_json.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size ? size : 1); /* exactly size octets: ASan sees over-reads */
	if (!s)
		return 0;
	memcpy(s, data, size);
	struct iperf3_result r;
	if (iperf3_parse_result(s, size, &r) == 0) {
		const double v[] = { r.seconds, r.bytes, r.bits_per_second, r.cpu_host, r.cpu_remote };
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			if (!isfinite(v[i]) || v[i] < 0)
				abort();
	}
	if (memchr(r.error, 0, sizeof(r.error)) == NULL)
		abort();
	struct iperf3_ends whole = { 0 }, parts = { 0 };
	int n = iperf3_count_ends(&whole, s, size), m = 0;
	size_t step = size ? (size_t)data[0] % 7 + 1 : 1;
	for (size_t o = 0; o < size; o += step)
		m += iperf3_count_ends(&parts, s + o, size - o < step ? size - o : step);
	if (n != m || whole.state != parts.state)
		abort();
	free(s);
	return 0;
}
