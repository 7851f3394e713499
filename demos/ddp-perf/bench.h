/* ddp-perf: shared definitions of the benchmark runner and its drivers
 * (one driver per LLP: raw tcp, raw usrsctp, raw udp, DDP over MPA, DDP
 * over SCTP). */
#ifndef DDP_PERF_BENCH_H
#define DDP_PERF_BENCH_H

#include <event2/event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* MODE_WRITE / MODE_READ / MODE_READ_RTT: RDMA Write, RDMA Read and the
 * 64-octet Read round trip over libddp-rdmap (mpa and sctp only). */
enum bench_mode { MODE_UNTAGGED = 0, MODE_TAGGED, MODE_RTT, MODE_WRITE, MODE_READ, MODE_READ_RTT };
#define MODE_LAST MODE_READ_RTT

/* The mode's name ("untagged", "tagged", "rtt", "write", "read",
 * "read-rtt"); bench_mode_parse: -1 for an unknown name. */
const char *bench_mode_name(enum bench_mode m);
int bench_mode_parse(const char *name);
/* One message at a time, a mean round trip is reported (rtt, read-rtt). */
int bench_mode_rtt(enum bench_mode m);
/* Over libddp-rdmap queue pairs (write, read, read-rtt). */
int bench_mode_rdma(enum bench_mode m);

/* A server child of this process (two-process and netns modes): totals
 * the client reads from shared memory after each run. */
struct bench_share {
	uint64_t runs;		/* client runs finished */
	uint64_t copied;	/* payload octets the library copied there */
};

struct bench_params {
	const char *llp;      /* mpa, sctp, tcp, iperf3, usrsctp, usrsctp-stock,
			       * usrsctp-system, udp */
	enum bench_mode mode;
	size_t size;	      /* message size */
	int streams;	      /* DDP streams (tcp/mpa: connections) */
	double duration;      /* seconds of measurement */
	int role;	      /* 0 loopback (both ends), 1 server, 2 client */
	struct sockaddr_storage addr; /* server: listen, client: connect */
	socklen_t addrlen;
	int progress;	      /* show a live line on stderr */
	uint32_t mtu;	      /* link MTU of the SCTP-family rows (sctp,
			       * usrsctp*, udp); 0: from the route */
	const char *tcp_cc;   /* TCP congestion control of tcp and mpa (NULL:
			       * the system default) */
	int no_crc;	      /* mpa: ask for no CRC (C=0); both ends must */
	int sctp_cc;	      /* enum ddp_sctp_cc of the sctp and usrsctp
			       * rows (0: the library's default) */
	uint32_t sctp_buf;    /* their usrsctp socket buffers (0: default) */
	const char *system_perf; /* usrsctp-system: the ddp-perf built against
				  * the packaged libusrsctp it runs */
	const char *child_opts[5]; /* usrsctp-system: that ddp-perf's options
				    * for this run's topology and heap
				    * (NULL-terminated; main.c) */
	int announce_fd;      /* server: > 0: write the port there (fork) */
	struct bench_share *share; /* server child: totals for the client */
};

struct bench_result {
	uint64_t msgs, bytes;	/* delivered at the receiver */
	double secs;		/* measured wall time */
	double cpu;		/* user+sys seconds of this process */
	uint64_t copied;	/* payload octets the library copied */
	double rtt_us;		/* MODE_RTT: mean round trip */
	uint32_t dgram;		/* udp: datagram payload size */
	uint64_t window;	/* DDP untagged: the largest credit window of
				 * a stream at the end (octets) */
	int failed;
	int skipped;		/* not measured (why says why): e.g. the
				 * program a row runs is not installed */
	char why[160];
	char usrsctp[64];	/* usrsctp-system: the usrsctp its ddp-perf
				 * was built with, as that one says */
};

struct bench_driver {
	const char *name;
	int (*run)(struct event_base *base, const struct bench_params *p, struct bench_result *r);
};

extern const struct bench_driver drv_tcp, drv_mpa, drv_sctp, drv_usrsctp, drv_usrsctp_stock,
	drv_usrsctp_system, drv_udp, drv_iperf3;

/* The usrsctp this program was built with ("libusrsctp VERSION + N
 * patches (DIR)" or "packaged libusrsctp VERSION"), and the default of
 * --system-usrsctp-perf: where make puts the ddp-perf built against the
 * packaged libusrsctp (usrsctp_build.c; both from make). */
const char *bench_usrsctp_build(void);
/* --sctp-cc's names (sctp_cc.c): enum ddp_sctp_cc from a name, or -1;
 * the name of one ("?" out of range). */
int bench_sctp_cc_parse(const char *s);
const char *bench_sctp_cc_name(int cc);
const char *bench_system_perf_default(void);

/* The driver of an LLP name, NULL if none (main.c). */
const struct bench_driver *bench_find_driver(const char *name);

/* helpers (bench.c) */
double now_s(void);
/* user+system seconds of this process, plus the peer's if one is set */
double cpu_s(void);
/* Two processes: count the server child pid in cpu_s() too (0: none). */
void bench_set_peer(pid_t pid);
void bench_fail(struct bench_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Live progress: call from the driver's periodic timer. */
void bench_progress(const struct bench_params *p, const struct bench_result *r, double elapsed);
/* Fill the pattern for message number n (so receivers can verify). */
void bench_fill(uint8_t *buf, size_t len, uint64_t n);
int bench_check(const uint8_t *buf, size_t len, uint64_t n);
/* Server role: say where it listens ("ddp-perf: WHAT ... port N" on
 * stderr, or the port on p->announce_fd) */
void bench_serving(const struct bench_params *p, const char *line, int port);
/* Server role: one client run ended (fork mode: tell the client). */
void bench_server_done(const struct bench_params *p, uint64_t copied);
/* TCP_CONGESTION = name on fd (NULL: nothing). 0 or -1. */
int bench_set_cc(int fd, const char *name);

#endif
