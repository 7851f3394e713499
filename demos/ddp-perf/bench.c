/* ddp-perf helpers: clocks, progress line, payload pattern. */
#include "bench.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* user + system CPU seconds of another process so far (/proc/PID/stat) */
static double cpu_of(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* after "(comm)": state is field 3, utime 14, stime 15 */
	const char *s = strrchr(buf, ')');
	unsigned long ut = 0, st = 0;
	if (!s || sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static pid_t peer;

void bench_set_peer(pid_t pid)
{
	peer = pid;
}

double cpu_s(void)
{
	double other = peer > 0 ? cpu_of(peer) : 0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return other + (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

void bench_fail(struct bench_result *r, const char *fmt, ...)
{
	if (r->failed)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	r->failed = 1;
}

static const char *const mode_names[] = { "untagged", "tagged", "rtt", "write", "read",
					   "read-rtt" };

const char *bench_mode_name(enum bench_mode m)
{
	return (unsigned)m <= MODE_LAST ? mode_names[m] : "?";
}

int bench_mode_parse(const char *name)
{
	for (int i = 0; i <= MODE_LAST; i++)
		if (!strcmp(name, mode_names[i]))
			return i;
	return -1;
}

int bench_mode_rtt(enum bench_mode m)
{
	return m == MODE_RTT || m == MODE_READ_RTT;
}

int bench_mode_rdma(enum bench_mode m)
{
	return m == MODE_WRITE || m == MODE_READ || m == MODE_READ_RTT;
}

void bench_progress(const struct bench_params *p, const struct bench_result *r, double elapsed)
{
	if (!p->progress)
		return;
	double mbs = elapsed > 0 ? (double)r->bytes / elapsed / 1e6 : 0;
	fprintf(stderr, "\r  %-13s %-8s %6zu B x%-3d %5.1f s  %9.1f MB/s  %10.0f msg/s   ", p->llp,
		bench_mode_name(p->mode), p->size, p->streams, elapsed, mbs,
		elapsed > 0 ? (double)r->msgs / elapsed : 0);
	fflush(stderr);
}

/* Cheap verifiable pattern: 8-octet words of (n, position). */
void bench_fill(uint8_t *buf, size_t len, uint64_t n)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(n * 131 + i * 7);
}

int bench_check(const uint8_t *buf, size_t len, uint64_t n)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != (uint8_t)(n * 131 + i * 7))
			return -1;
	return 0;
}

int bench_set_cc(int fd, const char *name)
{
	if (!name)
		return 0;
	return setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, (socklen_t)strlen(name));
}

void bench_serving(const struct bench_params *p, const char *line, int port)
{
	if (p->announce_fd > 0) {
		char b[16];
		int n = snprintf(b, sizeof(b), "%d\n", port);
		if (write(p->announce_fd, b, (size_t)n) != n)
			perror("ddp-perf: announcing the server port");
		close(p->announce_fd);
		return;
	}
	fprintf(stderr, "ddp-perf: %s\n", line);
}

void bench_server_done(const struct bench_params *p, uint64_t copied)
{
	if (!p->share)
		return;
	__atomic_add_fetch(&p->share->copied, copied, __ATOMIC_RELAXED);
	__atomic_add_fetch(&p->share->runs, 1, __ATOMIC_RELEASE);
}
