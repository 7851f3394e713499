/* ddp-perf: the DDP traffic engine (drv_ddp.c) used by drv_mpa.c and
 * drv_sctp.c, which only set up connections and streams. */
#ifndef DDP_PERF_DRV_DDP_H
#define DDP_PERF_DRV_DDP_H

#include <ddp/ddp.h>
#include <ddp/rdmap.h>

#include "bench.h"

/* Receive buffers (untagged) / tagged slots per stream: a window of
 * WINDOW_MPA or WINDOW_SCTP octets per stream, 16..8192 messages, so the
 * benchmark ULP's own flow control (credits) is not what limits the LLP.
 * Why the two differ: drun_init(). */
#define WINDOW_MPA (1u << 20)
#define WINDOW_SCTP (8u << 20)
#define WINDOW_SCTP_ALL (32u << 20) /* SCTP: over all streams */
#define DEPTH_MIN 16
#define DEPTH_MAX 8192
#define DEPTH (d->depth)
/* Untagged: the window starts at that size and grows while it is what
 * bounds the run (window_sample() in drv_ddp.c), to at most WINDOW_GROW_ALL
 * octets over all streams and WINDOW_MSGS_MAX messages per stream (the
 * drivers let that many buffers be posted per stream: max_posted). */
#define WINDOW_GROW_ALL (64u << 20)
#define WINDOW_MSGS_MAX 65536u

struct bstream {
	ddp_session *tx_s, *rx_s;
	uint32_t tx_st, rx_st;
	uint32_t credits, inflight, since_credit, stag;
	double credit_sent_t; /* receiver: when the last count message went */
	uint64_t sent, got;
	/* the untagged window (drv_ddp.c, window_sample) */
	uint32_t win;		/* sender: credits granted in all (messages) */
	uint32_t rwin;		/* receiver: buffers posted (messages) */
	uint64_t acked;		/* sender: credits received in all */
	uint64_t smp_seq, smp_acked; /* the credit round trip being timed */
	double smp_t, rtt_min;
	int blocked, asking, at_cap;
	uint8_t *rbuf, *sbuf;
	int tx_ready;
	void *llp_tx, *llp_rx; /* the driver's connection objects */
	ddp_rdmap_qp *qp, *rqp;	/* RDMA modes: requester's, responder's
				 * (one process: both here) */
	uint32_t sink;		/* RDMA modes, requester: Read sink STag */
	int fenced;		/* write: the closing Read completed */
};

struct drun {
	struct event_base *base;
	const struct bench_params *p;
	struct bench_result *r;
	ddp_ctx *ctx;
	ddp_pd *pd;
	struct bstream *bs;
	int n, started, stop, connected;
	uint32_t depth;
	uint32_t rcap;	/* untagged: buffers a stream may grow to */
	int fixed_window; /* DDP_PERF_WINDOW=fixed: the sender never asks */
	int count_tx;	/* client role: count at the sender, by the receiver's
			 * count messages (credits) */
	int closed;	/* server role: connections/streams ended */
	int own_ctx;	/* ctx and pd were made by drun_init */
	int serving;	/* server role: errors end the run, not the loop */
	uint8_t *src;
	struct event *tick;
	double t0, c0, rtt_t, rtt_sum;
	double credit_t0, credit_t1;	/* client role: first and last credit */
	ddp_rdmap_dev *dev;	/* RDMA modes (drv_rdma.c) */
	int fences;		/* write: closing Reads outstanding */
	uint64_t credit_b0, credit_m0;	/* counted up to the first credit */
};

extern const ddp_callbacks drun_callbacks; /* user = struct drun * */

/* ctx/pd NULL: make a context and PD of its own (freed by drun_free). */
int drun_init(struct drun *d, struct event_base *base, const struct bench_params *p,
	      struct bench_result *r, int n, ddp_ctx *ctx, ddp_pd *pd);
int drun_rx_ready(struct drun *d, struct bstream *b);
int drun_tx_ready(struct drun *d, struct bstream *b);
void drun_measure(struct drun *d);
void drun_loop(struct drun *d);
void drun_count_copies(struct drun *d, ddp_session *s);
void drun_free(struct drun *d);
/* The receiver's STag of a tagged run, as accept private data (4 octets). */
void stag_put(uint8_t out[4], uint32_t stag);
uint32_t stag_get(const uint8_t *in, size_t len);

/* RDMA modes (drv_rdma.c): queue pairs on the benchmark streams.
 * RDMA_DEPTH is the IRD and ORD both ends ask for. */
#define RDMA_DEPTH 16
extern ddp_callbacks rdma_callbacks; /* the dispatcher's (user: d->dev) */
int rdma_init(struct drun *d);
/* Responder: register the region the peer writes or reads (b->stag). */
int rdma_rx_ready(struct drun *d, struct bstream *b);
/* A queue pair on (s, stream) with the negotiated ird/ord; requester: the
 * end that posts (b->stag: the responder's region). */
int rdma_qp_start(struct drun *d, struct bstream *b, ddp_session *s, uint32_t stream,
		  uint32_t ird, uint32_t ord, int requester);
/* Free the queue pairs on s (NULL: all): before the session goes. */
void rdma_qp_drop(struct drun *d, ddp_session *s);
void rdma_go(struct drun *d);
/* The measured time is up: 1 while the run still drains (write: a Read
 * behind the Writes proves they were placed), 0 when it may end. */
int rdma_drain(struct drun *d, double elapsed);
void rdma_free(struct drun *d);

/* Benchmark parameters a client sends the server in the private data of
 * its MPA Request / SCTP Initiate (12 octets, little endian). run tells
 * one client run from the next (random per run). */
#define WIRE_PARAMS_LEN 12
struct wire_params {
	uint16_t index, n;
	uint8_t mode;
	uint32_t size;
	uint32_t run;
};
void wire_params_put(uint8_t out[WIRE_PARAMS_LEN], const struct wire_params *w);
/* A random run id for this client run. */
uint32_t wire_run_id(void);
int wire_params_get(const uint8_t *in, size_t len, struct wire_params *w);
/* Server role: print what one client run delivered here. */
void drun_server_report(struct drun *d, const char *llp);

#endif
