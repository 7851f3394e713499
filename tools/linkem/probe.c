/*
 * linkem-probe: the traffic the linkem tests measure with.
 *
 *   linkem-probe udp-recv PORT COUNT IDLE_MS    counts what arrives of COUNT
 *       numbered datagrams until all arrived or none came for IDLE_MS; prints
 *       one line: received= unique= lost= dup= reordered= gaps= maxgap= and
 *       the one-way delay (min, mean, max, 10th, 50th and 90th percentile in
 *       us; the sender's time is in
 *       every datagram and both namespaces share CLOCK_MONOTONIC)
 *   linkem-probe udp-send ADDR PORT COUNT PPS [SIZE]
 *       COUNT datagrams of SIZE octets (>= 16, default 64), numbered from 0,
 *       paced at PPS per second (in 1 ms bursts)
 *   linkem-probe tcp-recv PORT SKIP_MS          one connection: prints the
 *       goodput (bit/s) from SKIP_MS after its first byte to its end, and
 *       how many octets differ from the sender's pattern (corrupt=)
 *   linkem-probe tcp-send ADDR PORT SECONDS     sends for SECONDS, then closes
 *       (congestion control cubic where the kernel has it)
 *
 * Receivers print "listening" on stdout once bound.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* the TCP stream: octet i is i % PAT, a prime, so that no segment size
 * lines up with it and a piece cut or put back in the wrong place shows */
#define PAT 251

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int die(const char *what)
{
	fprintf(stderr, "linkem-probe: %s: %s\n", what, strerror(errno));
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int bound(int type, int port)
{
	int s = socket(AF_INET, type, 0);
	int one = 1, big = 32 << 20;
	if (s < 0)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big) < 0)
		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (bind(s, (struct sockaddr *)&a, sizeof a) < 0) {
		close(s);
		return -1;
	}
	return s;
}

static int peer(const char *addr, int port, struct sockaddr_in *a)
{
	memset(a, 0, sizeof *a);
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, addr, &a->sin_addr) == 1 ? 0 : -1;
}

static int udp_recv(int port, uint64_t count, int idle_ms)
{
	int s = bound(SOCK_DGRAM, port);
	if (s < 0)
		return die("bind");
	uint8_t *seen = calloc((size_t)count / 8 + 1, 1);
	if (!seen)
		return die("calloc");
	printf("listening\n");
	fflush(stdout);
	uint64_t recvd = 0, uniq = 0, dup = 0, reord = 0, maxseq = 0;
	double owd_sum = 0, owd_min = 1e18, owd_max = 0; /* one-way delay, us */
	double *owds = calloc((size_t)count + 1, sizeof *owds);
	uint64_t nowd = 0;
	if (!owds)
		return die("calloc");
	int any = 0;
	uint8_t buf[65536];
	while (uniq < count) {
		struct pollfd pf = {.fd = s, .events = POLLIN};
		if (poll(&pf, 1, any ? idle_ms : 30000) <= 0)
			break;
		ssize_t r;
		while ((r = recv(s, buf, sizeof buf, MSG_DONTWAIT)) >= 8) {
			uint64_t q;
			memcpy(&q, buf, 8);
			any = 1;
			recvd++;
			if (q >= count)
				continue;
			if (seen[q / 8] & (1u << (q % 8))) {
				dup++;
				continue;
			}
			seen[q / 8] |= (uint8_t)(1u << (q % 8));
			uniq++;
			if (r >= 16) {
				/* both namespaces read the same CLOCK_MONOTONIC */
				uint64_t sent;
				memcpy(&sent, buf + 8, 8);
				double owd = (double)(now_ns() - sent) / 1e3;
				owd_sum += owd;
				owds[nowd++] = owd;
				owd_min = owd < owd_min ? owd : owd_min;
				owd_max = owd > owd_max ? owd : owd_max;
			}
			if (uniq > 1 && q < maxseq)
				reord++;
			if (q > maxseq)
				maxseq = q;
		}
	}
	uint64_t gaps = 0, maxgap = 0, run = 0;
	for (uint64_t q = 0; q < count; q++) {
		if (!(seen[q / 8] & (1u << (q % 8)))) {
			if (run++ == 0)
				gaps++;
			if (run > maxgap)
				maxgap = run;
		} else {
			run = 0;
		}
	}
	qsort(owds, (size_t)nowd, sizeof *owds, cmp_double);
	printf("received=%llu unique=%llu lost=%llu dup=%llu reordered=%llu gaps=%llu maxgap=%llu "
	       "owd_min_us=%.0f owd_avg_us=%.0f owd_max_us=%.0f owd_p10_us=%.0f owd_med_us=%.0f "
	       "owd_p90_us=%.0f\n",
	       (unsigned long long)recvd, (unsigned long long)uniq,
	       (unsigned long long)(count - uniq), (unsigned long long)dup,
	       (unsigned long long)reord, (unsigned long long)gaps, (unsigned long long)maxgap,
	       nowd ? owd_min : 0, nowd ? owd_sum / (double)nowd : 0, owd_max,
	       owds[nowd / 10], owds[nowd / 2], owds[nowd * 9 / 10]);
	free(owds);
	free(seen);
	close(s);
	return 0;
}

static int udp_send(const char *addr, int port, uint64_t count, double pps, size_t size)
{
	struct sockaddr_in a;
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || peer(addr, port, &a) || connect(s, (struct sockaddr *)&a, sizeof a) < 0)
		return die("connect");
	int big = 8 << 20;
	setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof big);
	uint8_t buf[65536];
	if (size < 16 || size > sizeof buf)
		size = 64;
	memset(buf, 0xa5, size);
	double t0 = now_s();
	for (uint64_t q = 0; q < count;) {
		/* everything due by now, then sleep to the next millisecond */
		uint64_t due = (uint64_t)((now_s() - t0) * pps) + 1;
		if (due > q + 1000) /* after a stall: no burst the queues cannot take */
			due = q + 1000;
		for (; q < count && q < due; q++) {
			uint64_t t = now_ns();
			memcpy(buf, &q, 8);
			memcpy(buf + 8, &t, 8);
			while (send(s, buf, size, 0) < 0) {
				if (errno != ENOBUFS && errno != EAGAIN && errno != ECONNREFUSED)
					return die("send");
				struct timespec w = {0, 50000};
				nanosleep(&w, NULL);
			}
		}
		struct timespec w = {0, 1000000};
		nanosleep(&w, NULL);
	}
	printf("sent=%llu seconds=%.3f\n", (unsigned long long)count, now_s() - t0);
	close(s);
	return 0;
}

static int tcp_recv(int port, int skip_ms)
{
	int l = bound(SOCK_STREAM, port);
	if (l < 0 || listen(l, 1) < 0)
		return die("listen");
	printf("listening\n");
	fflush(stdout);
	int s = accept(l, NULL, NULL);
	if (s < 0)
		return die("accept");
	static uint8_t buf[1 << 20];
	double from = 0, start = 0, last = 0;
	uint64_t total = 0, counted = 0, bad = 0;
	int counting = 0;
	for (;;) {
		ssize_t r = recv(s, buf, sizeof buf, 0);
		if (r <= 0)
			break;
		double t = now_s();
		if (!total)
			from = t + skip_ms / 1000.0;
		for (ssize_t i = 0; i < r; i++)
			bad += buf[i] != (uint8_t)((total + (uint64_t)i) % PAT);
		total += (uint64_t)r;
		if (counting) {
			counted += (uint64_t)r;
			last = t;
		} else if (t >= from) {
			counting = 1; /* bytes after this read, time from its end */
			start = last = t;
		}
	}
	double secs = last - start;
	double bps = secs > 0 ? (double)counted * 8 / secs : 0;
	printf("bytes=%llu seconds=%.3f goodput_bps=%.0f corrupt=%llu\n", (unsigned long long)total,
	       secs, bps, (unsigned long long)bad);
	close(s);
	close(l);
	return 0;
}

static int tcp_send(const char *addr, int port, double secs)
{
	struct sockaddr_in a;
	int s = socket(AF_INET, SOCK_STREAM, 0);
	/* cubic, not the system's default: BBR (this machine's) paces by
	 * timer and cycles its pacing gain, and its start-up overshot the
	 * 100-packet queue by 90 drops, so one 3 s flow read 7.5 % under the
	 * link's rate on a quiet machine; the tests measure linkem's rate, so
	 * the flow must keep the link busy. Without cubic: the default. */
	static const char cc[] = "cubic";
	if (s >= 0 && setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, cc, sizeof cc - 1) < 0)
		fprintf(stderr, "linkem-probe: no cubic (%s): the system's congestion control\n",
			strerror(errno));
	if (s < 0 || peer(addr, port, &a) || connect(s, (struct sockaddr *)&a, sizeof a) < 0)
		return die("connect");
	static uint8_t buf[PAT * 1045];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i % PAT);
	double end = now_s() + secs;
	uint64_t total = 0;
	while (now_s() < end) {
		ssize_t w = send(s, buf + total % PAT, PAT * 1000, 0);
		if (w < 0)
			return die("send");
		total += (uint64_t)w;
	}
	printf("sent=%llu\n", (unsigned long long)total);
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && strcmp(argv[1], "udp-recv") == 0)
		return udp_recv(atoi(argv[2]), strtoull(argv[3], NULL, 10), atoi(argv[4]));
	if (argc >= 6 && strcmp(argv[1], "udp-send") == 0)
		return udp_send(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 10),
				atof(argv[5]), argc > 6 ? (size_t)atoi(argv[6]) : 64);
	if (argc >= 4 && strcmp(argv[1], "tcp-recv") == 0)
		return tcp_recv(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 5 && strcmp(argv[1], "tcp-send") == 0)
		return tcp_send(argv[2], atoi(argv[3]), atof(argv[4]));
	fprintf(stderr, "usage: linkem-probe udp-recv PORT COUNT IDLE_MS | udp-send ADDR PORT COUNT "
			"PPS [SIZE]\n"
			"       | tcp-recv PORT SKIP_MS | tcp-send ADDR PORT SECONDS\n");
	return 2;
}
