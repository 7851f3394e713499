/* ddp-perf --latency: the one-way delivery delay of messages sent at a
 * fixed offered load over K streams, per LLP arrangement (latency.c runs
 * the rows, lat_ddp.c moves the messages, lat_stats.c makes the table).
 *
 * Every message starts with a header the sender fills when it hands the
 * message to DDP: its CLOCK_MONOTONIC time in nanoseconds (both processes
 * run on this host, so the clock is the same for both ends), the channel
 * and the channel's sequence number. The receiver takes now - stamp at
 * delivery and keeps every sample (up to LAT_MAX_SAMPLES per row) in
 * memory shared with the client, which sorts them for exact percentiles. */
#ifndef DDP_PERF_LATENCY_H
#define DDP_PERF_LATENCY_H

#include <event2/event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

/* Octets of the header at the front of every message (stamp, channel,
 * sequence, little endian); the smallest --sizes. */
#define LAT_HDR 16
/* Samples kept per row (4 octets each, 16 MiB); the delivered count,
 * maximum and rate keep counting past it, the percentiles are of the
 * first LAT_MAX_SAMPLES deliveries (the table says when it was reached). */
#define LAT_MAX_SAMPLES (4u << 20)

/* The arrangements measured, one row each. */
enum lat_kind {
	LAT_SCTP,     /* DDP/SCTP: one association, one DDP stream per channel */
	LAT_MPA_K,    /* DDP/MPA: one connection per channel */
	LAT_MPA_1,    /* DDP/MPA: one connection, channel id in the header */
	LAT_TCP_1,    /* raw TCP: one connection, length-prefixed, channel id */
	LAT_NKINDS
};

struct lat_opts {
	int streams;	 /* K channels */
	double rate;	 /* offered load over all channels, bit/s */
	size_t size;	 /* message size, >= LAT_HDR */
	double duration; /* seconds of sending */
	double drain;	 /* seconds to wait for the last deliveries at most */
	uint32_t mtu;	 /* SCTP's link MTU (0: from the route) */
	const char *tcp_cc;
	int sctp_cc;	 /* enum ddp_sctp_cc (0: the library's default) */
};

/* Written by the server child (the receiver), read by the client after
 * the row: in MAP_SHARED memory, samples[] follows. */
struct lat_shm {
	uint64_t delivered, bytes; /* receiver */
	uint64_t sent;		   /* sender: messages handed to DDP */
	uint32_t nsamp;		   /* samples[] filled */
	uint32_t max_us;	   /* over every delivery (also past the cap) */
	uint64_t bad;		   /* messages with a wrong length or channel */
	int failed;
	char why[160];
	uint32_t samples[];	   /* one-way delay in microseconds */
};

/* One end of a row (lat_ddp.c, lat_tcp.c). The server announces its port
 * on announce_fd and receives until SIGTERM; the client connects to
 * addr, sends for o->duration, and waits until every message sent is
 * delivered (sh->delivered) or o->drain passed. 0 or -1 (sh->why). */
int lat_serve(struct event_base *base, enum lat_kind k, const struct lat_opts *o,
	      const char *host, int announce_fd, struct lat_shm *sh);
int lat_client(struct event_base *base, enum lat_kind k, const struct lat_opts *o,
	       const struct sockaddr_in *addr, struct lat_shm *sh, double *sent_secs);

/* The same for LAT_TCP_1 (lat_tcp.c): raw TCP, each message behind a
 * 4-octet length, over one connection with TCP_NODELAY. */
int lat_tcp_serve(struct event_base *base, const struct lat_opts *o, const char *host,
		  int announce_fd, struct lat_shm *sh);
int lat_tcp_client(struct event_base *base, const struct lat_opts *o,
		   const struct sockaddr_in *addr, struct lat_shm *sh, double *sent_secs);

/* Receiver: one message delivered (its first LAT_HDR octets at buf). */
void lat_record(struct lat_shm *sh, const uint8_t *buf, size_t len, const struct lat_opts *o);
/* Receiver, --trace: one line per delivery (send time in ms of
 * CLOCK_MONOTONIC, channel, sequence, delay in ms) when set. */
extern FILE *lat_trace;
/* Sender: fill the header of a message of channel ch, number seq. */
void lat_stamp(uint8_t *hdr, uint32_t ch, uint32_t seq);
uint64_t lat_now_ns(void);
void lat_fail(struct lat_shm *sh, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Pacing (lat_stats.c): the channels' schedule at an even share of the
 * offered load, staggered so they do not all send at one instant. */
struct lat_pace {
	int n;
	double t0, interval; /* seconds between two messages of one channel */
	uint64_t *due_n;     /* per channel: messages due so far, sent so far */
	uint64_t *done_n;
};
int lat_pace_init(struct lat_pace *p, const struct lat_opts *o, double t0);
/* Messages channel ch owes at time now (due and not yet sent). */
uint64_t lat_pace_owed(struct lat_pace *p, int ch, double now);
void lat_pace_free(struct lat_pace *p);

/* The table (lat_stats.c): one row from its samples (sorted in place). */
void lat_report_head(const struct lat_opts *o, const char *where);
void lat_report_row(const char *name, struct lat_shm *sh, double secs, const struct lat_opts *o,
		    int json);

/* --latency and its options (latency.c): main's delegation. 1 when
 * argv asks for the latency mode. */
int latency_wanted(int argc, char **argv);
int latency_main(int argc, char **argv);

#endif
