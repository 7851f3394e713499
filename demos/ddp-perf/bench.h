/* ddp-perf: shared definitions of the benchmark runner and its drivers
 * (one driver per LLP: raw tcp, raw usrsctp, DDP over MPA, DDP over SCTP). */
#ifndef DDP_PERF_BENCH_H
#define DDP_PERF_BENCH_H

#include <event2/event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

enum bench_mode { MODE_UNTAGGED = 0, MODE_TAGGED, MODE_RTT };

struct bench_params {
	const char *llp;      /* mpa, sctp, tcp, usrsctp, usrsctp-stock */
	enum bench_mode mode;
	size_t size;	      /* message size */
	int streams;	      /* DDP streams (tcp/mpa: connections) */
	double duration;      /* seconds of measurement */
	int role;	      /* 0 loopback (both ends), 1 server, 2 client */
	struct sockaddr_storage addr; /* server: listen, client: connect */
	socklen_t addrlen;
	int progress;	      /* show a live line on stderr */
	uint32_t mtu;	      /* SCTP path MTU (0: the adapter's default) */
	const char *tcp_cc;   /* TCP congestion control of tcp and mpa (NULL:
			       * the system default) */
	int no_crc;	      /* mpa: ask for no CRC (C=0); both ends must */
};

struct bench_result {
	uint64_t msgs, bytes;	/* delivered at the receiver */
	double secs;		/* measured wall time */
	double cpu;		/* user+sys seconds of this process */
	uint64_t copied;	/* payload octets the library copied */
	double rtt_us;		/* MODE_RTT: mean round trip */
	int failed;
	char why[160];
};

struct bench_driver {
	const char *name;
	int (*run)(struct event_base *base, const struct bench_params *p, struct bench_result *r);
};

extern const struct bench_driver drv_tcp, drv_mpa, drv_sctp, drv_usrsctp, drv_usrsctp_stock;

/* helpers (bench.c) */
double now_s(void);
double cpu_s(void);
void bench_fail(struct bench_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Live progress: call from the driver's periodic timer. */
void bench_progress(const struct bench_params *p, const struct bench_result *r, double elapsed);
/* Fill the pattern for message number n (so receivers can verify). */
void bench_fill(uint8_t *buf, size_t len, uint64_t n);
int bench_check(const uint8_t *buf, size_t len, uint64_t n);
/* TCP_CONGESTION = name on fd (NULL: nothing). 0 or -1. */
int bench_set_cc(int fd, const char *name);

#endif
