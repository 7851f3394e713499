/*
 * linkem: a link emulator between two network namespaces (see docs/linkem.md).
 *
 * The parts: spec.c parses the SPEC string into a struct lk_link; path.c is
 * the model of one direction (loss, bursty loss, duplication, bottleneck
 * rate and queue, outages, delay and jitter), pure and clock-free (the caller
 * passes the time); seg.c reads the packet headers a TUN device hands over
 * and cuts a TCP super-packet (GSO) into runs of wire packets; fwd.c is the
 * forwarding loop of one direction; main.c sets up the namespaces and TUN
 * devices, starts one thread per direction and prints the counters.
 */
#ifndef LINKEM_H
#define LINKEM_H

#include <stddef.h>
#include <stdint.h>

#define LK_MAX_OUTAGES 16
#define LK_MAX_SEGS    128 /* 64 KiB super-packet / 536-octet MSS, rounded up */

/* Gilbert-Elliott two-state loss: p = P(good -> bad), r = P(bad -> good),
 * bad_loss = 1-h (loss probability in the bad state), good_loss = 1-k. */
struct lk_ge {
	int on;
	double p, r, bad_loss, good_loss;
};

struct lk_outage {
	uint64_t at_ns;  /* from the moment the link is up */
	uint64_t len_ns; /* down for this long */
};

/* What one direction does to the packets that cross it. */
struct lk_dir_spec {
	uint64_t delay_ns;
	uint64_t jitter_ns; /* uniform in [-jitter, +jitter] around delay */
	int reorder;        /* 1: jitter may let a packet overtake an earlier one */
	double loss;        /* independent loss probability per wire packet */
	struct lk_ge ge;
	double dup;         /* duplication probability per wire packet */
	uint64_t rate_bps;  /* bottleneck rate (IP packet bytes); 0 = unlimited */
	uint32_t queue;     /* bottleneck queue in packets (tail drop) */
	struct lk_outage outage[LK_MAX_OUTAGES];
	int n_outage;
	uint64_t seed;
};

struct lk_link {
	struct lk_dir_spec dir[2]; /* 0 = fwd (A -> B), 1 = rev (B -> A) */
	uint32_t mtu;
	int gso; /* 1: TSO/GSO super-packets through the TUN devices */
};

/* Parses SPEC into *link (defaults first). Returns 0, or -1 with a message
 * in err (errlen bytes, always terminated). */
int lk_spec_parse(const char *spec, struct lk_link *link, char *err, size_t errlen);
/* Writes the spec of one direction in the SPEC grammar (for the log). */
void lk_spec_format(const struct lk_dir_spec *d, char *out, size_t outlen);

/* ---- one direction's model (path.c) ---- */
struct lk_counters {
	uint64_t passed;    /* wire packets written out (duplicates included) */
	uint64_t bytes;     /* their IP bytes */
	uint64_t lost;      /* dropped by random or bursty loss */
	uint64_t queue;     /* dropped at the full bottleneck queue */
	uint64_t outage;    /* dropped because the link was down */
	uint64_t dup;       /* extra copies made */
	uint64_t reordered; /* written after a packet that entered later */
	uint64_t errors;    /* could not be written or read */
	uint64_t items;     /* reads from the TUN device (super-packets count once) */
};

struct lk_path {
	struct lk_dir_spec sp;
	uint64_t rng[4];
	int ge_bad;
	uint64_t t0;            /* link up time (outages count from it) */
	uint64_t last_dep_ps;   /* bottleneck: when the last accepted packet leaves (from t0) */
	uint64_t *dep;          /* departure times (ns) of the packets in the queue */
	uint32_t dep_head, dep_n, dep_cap;
	uint64_t last_release;  /* for reorder=0: releases never go backwards */
	struct lk_counters c;
};

int lk_path_init(struct lk_path *p, const struct lk_dir_spec *sp, uint64_t t0);
void lk_path_free(struct lk_path *p);
uint64_t lk_rand(struct lk_path *p);
/* 1 if the link is down at time now */
int lk_path_down(const struct lk_path *p, uint64_t now);
/* 1 if this wire packet is lost (random or Gilbert-Elliott) */
int lk_path_lose(struct lk_path *p);
/* 1 if this wire packet is to be duplicated */
int lk_path_dup(struct lk_path *p);
/* Bottleneck: a packet of wire_bytes arrives at now. Returns 0 and its
 * departure time in *depart, or -1 when the queue is full (tail drop). */
int lk_path_enqueue(struct lk_path *p, uint64_t now, uint32_t wire_bytes, uint64_t *depart);
/* The time a packet that left the bottleneck at depart leaves the link. */
uint64_t lk_path_release(struct lk_path *p, uint64_t depart);

/* ---- packets and super-packets (seg.c) ---- */
/* A packet as the TUN device hands it over: virtio_net_hdr + IP packet. */
struct lk_pktinfo {
	uint32_t nseg;    /* wire packets it stands for */
	uint32_t hdrlen;  /* IP + TCP header bytes (GSO only) */
	uint32_t mss;     /* payload per wire packet (GSO only) */
	uint32_t payload; /* payload bytes after the headers (GSO only) */
	int splittable;   /* 1: TCP over IPv4/IPv6 that seg_run can cut */
};

#define LK_VNET_HDR_LEN 10

/* Classifies the packet buf[0..len) (virtio header first). Returns 0, or -1
 * when it is too short to hold a virtio header. Never reads past len. */
int lk_pkt_parse(const uint8_t *buf, size_t len, struct lk_pktinfo *pi);
/* IP bytes of wire packet i of the packet (i < pi->nseg). */
uint32_t lk_pkt_wire_len(const struct lk_pktinfo *pi, size_t len, uint32_t i);
/* Writes the wire packets [first, first+n) of a splittable packet as one
 * packet (a smaller super-packet when n > 1) into out (outcap bytes): headers
 * copied and fixed (lengths, IPv4 id and checksum, TCP sequence number and
 * flags, checksum left to the receiver as the kernel does). Returns its
 * length, or 0 when it does not fit or the range is bad. */
size_t lk_pkt_run(const uint8_t *buf, size_t len, const struct lk_pktinfo *pi, uint32_t first,
		  uint32_t n, uint8_t *out, size_t outcap);

/* ---- one direction's forwarding loop (fwd.c) ---- */
struct lk_fwd;
struct lk_fwd *lk_fwd_new(int in_fd, int out_fd, const struct lk_dir_spec *sp, uint64_t t0,
			  int stop_fd);
/* Runs until *stop becomes nonzero (checked at least every 100 ms and
 * whenever stop_fd becomes readable). */
void lk_fwd_run(struct lk_fwd *f, volatile int *stop);
void lk_fwd_counters(struct lk_fwd *f, struct lk_counters *out);
void lk_fwd_free(struct lk_fwd *f);

uint64_t lk_now_ns(void);

#endif
