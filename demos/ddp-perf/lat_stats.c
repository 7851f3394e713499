/* ddp-perf --latency: message headers, pacing and the table (latency.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latency.h"

uint64_t lat_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void lat_stamp(uint8_t *hdr, uint32_t ch, uint32_t seq)
{
	uint64_t t = lat_now_ns();
	put32(hdr, (uint32_t)t);
	put32(hdr + 4, (uint32_t)(t >> 32));
	put32(hdr + 8, ch);
	put32(hdr + 12, seq);
}

FILE *lat_trace;

void lat_record(struct lat_shm *sh, const uint8_t *buf, size_t len, const struct lat_opts *o)
{
	uint64_t now = lat_now_ns();
	if (len != o->size || get32(buf + 8) >= (uint32_t)o->streams) {
		sh->bad++;
		return;
	}
	uint64_t t = (uint64_t)get32(buf) | (uint64_t)get32(buf + 4) << 32;
	uint64_t us = now > t ? (now - t + 500) / 1000 : 0;
	uint32_t v = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
	if (sh->nsamp < LAT_MAX_SAMPLES)
		sh->samples[sh->nsamp++] = v;
	if (v > sh->max_us)
		sh->max_us = v;
	sh->delivered++;
	sh->bytes += len;
	if (lat_trace)
		fprintf(lat_trace, "%.3f %u %u %.3f\n", (double)t / 1e6, get32(buf + 8),
			get32(buf + 12), v / 1000.0);
}

void lat_fail(struct lat_shm *sh, const char *fmt, ...)
{
	if (sh->failed)
		return;
	sh->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sh->why, sizeof(sh->why), fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ pacing */

int lat_pace_init(struct lat_pace *p, const struct lat_opts *o, double t0)
{
	memset(p, 0, sizeof(*p));
	p->n = o->streams;
	p->t0 = t0;
	/* each channel offers rate / K: one message of size * 8 bits per
	 * interval */
	p->interval = (double)o->size * 8.0 * o->streams / o->rate;
	p->due_n = calloc((size_t)p->n, sizeof(*p->due_n));
	p->done_n = calloc((size_t)p->n, sizeof(*p->done_n));
	return p->due_n && p->done_n ? 0 : -1;
}

uint64_t lat_pace_owed(struct lat_pace *p, int ch, double now)
{
	/* channel ch sends its first message at t0 + ch/K of an interval */
	double t = now - p->t0 - p->interval * ch / p->n;
	uint64_t due = t < 0 ? 0 : (uint64_t)floor(t / p->interval) + 1;
	return due > p->done_n[ch] ? due - p->done_n[ch] : 0;
}

void lat_pace_free(struct lat_pace *p)
{
	free(p->due_n);
	free(p->done_n);
	p->due_n = p->done_n = NULL;
}

/* ------------------------------------------------------------- table */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest sample with at least q of all at or below. */
static double pct_ms(const uint32_t *s, uint32_t n, double q)
{
	if (!n)
		return 0;
	double r = ceil(q * n);
	uint32_t i = r < 1 ? 0 : (uint32_t)r - 1;
	return s[i < n ? i : n - 1] / 1000.0;
}

void lat_report_head(const struct lat_opts *o, const char *where)
{
	printf("Message latency: %d streams x %zu octets, %.1f Mbit/s offered in all, %.1f s "
	       "(one-way delay, sender's stamp at hand-off to DDP to delivery)\n",
	       o->streams, o->size, o->rate / 1e6, o->duration);
	printf("Topology: %s\n", where);
	printf("%-22s %9s %9s %8s %8s %9s %8s %10s\n", "row", "sent", "delivered", "p50 ms",
	       "p99 ms", "p99.9 ms", "max ms", "Mbit/s");
}

void lat_report_row(const char *name, struct lat_shm *sh, double secs, const struct lat_opts *o,
		    int json)
{
	qsort(sh->samples, sh->nsamp, sizeof(uint32_t), cmp_u32);
	double p50 = pct_ms(sh->samples, sh->nsamp, 0.50), p99 = pct_ms(sh->samples, sh->nsamp, 0.99),
	       p999 = pct_ms(sh->samples, sh->nsamp, 0.999), mx = sh->max_us / 1000.0;
	double mbit = secs > 0 ? (double)sh->bytes * 8 / secs / 1e6 : 0;
	if (json) {
		printf("{\"latency\":\"%s\",\"streams\":%d,\"size\":%zu,\"offered_mbit\":%.2f,"
		       "\"sent\":%llu,\"delivered\":%llu,\"p50_ms\":%.3f,\"p99_ms\":%.3f,"
		       "\"p999_ms\":%.3f,\"max_ms\":%.3f,\"mbit_per_s\":%.2f,\"samples\":%u,"
		       "\"ok\":%s%s%s%s}\n",
		       name, o->streams, o->size, o->rate / 1e6, (unsigned long long)sh->sent,
		       (unsigned long long)sh->delivered, p50, p99, p999, mx, mbit, sh->nsamp,
		       sh->failed ? "false" : "true", sh->failed ? ",\"why\":\"" : "",
		       sh->failed ? sh->why : "", sh->failed ? "\"" : "");
	} else {
		printf("%-22s %9llu %9llu %8.2f %8.2f %9.2f %8.2f %10.2f%s%s%s\n", name,
		       (unsigned long long)sh->sent, (unsigned long long)sh->delivered, p50, p99, p999,
		       mx, mbit, sh->nsamp == LAT_MAX_SAMPLES ? "  (percentiles: first samples)" : "",
		       sh->failed ? "  FAILED: " : "", sh->failed ? sh->why : "");
	}
	if (sh->bad)
		printf("  %s: %llu messages with a wrong length or channel\n", name,
		       (unsigned long long)sh->bad);
	fflush(stdout);
}
