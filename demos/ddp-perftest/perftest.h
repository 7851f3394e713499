/* ddp-perftest: perftest's ib_{write,read,send}_bw and ib_{write,read}_lat
 * over libddp-rdmap, speaking perftest's rdma_cm mode (-R) so that an
 * unmodified perftest (e.g. on Linux siw) is the peer.
 *
 * link.c owns the LLP (MPA connections / SCTP stream sessions) and turns
 * libddp's callbacks into per-queue-pair completion queues polled from a
 * blocking main flow; comm.c perftest's control exchange; bw.c and lat.c
 * the measured loops; report.c the result tables; main.c the options and
 * the order of the exchange for each test. */
#ifndef DDP_PERFTEST_H
#define DDP_PERFTEST_H

#include <stddef.h>
#include <stdint.h>

#include <ddp/rdmap.h>

enum pt_test { PT_WRITE_BW, PT_READ_BW, PT_SEND_BW, PT_WRITE_LAT, PT_READ_LAT };

struct pt_opts {
	enum pt_test test;
	int server;         /* no peer address given */
	const char *addr;   /* peer (client) or local (server) IPv4 address */
	int port;           /* -p */
	uint64_t size;      /* -s */
	int all;            /* -a: sizes 2 .. 2^23 */
	uint64_t iters;     /* -n */
	int duration;       /* -D seconds, 0 = iterations */
	int qps;            /* -q */
	int tx_depth;       /* -t */
	int rx_depth;       /* -r (send_bw) */
	int out_reads;      /* -o */
	int gbits;          /* --report_gbits */
	int sctp, mpa_crc;  /* --llp sctp, --mpa-crc */
	int timeout;        /* --timeout seconds for the whole run */
	int debug;          /* -d: the exchange on stderr */
	uint32_t cycle_buf; /* agreed cycle buffer (perftest: the page size) */
	uint32_t cache_line;
};

static inline int pt_is_bw(const struct pt_opts *o)
{
	return o->test == PT_WRITE_BW || o->test == PT_READ_BW || o->test == PT_SEND_BW;
}
static inline int pt_is_read(const struct pt_opts *o)
{
	return o->test == PT_READ_BW || o->test == PT_READ_LAT;
}

/* ---------------------------------------------------------------- link.c */

struct pt_wc {
	enum ddp_rdmap_wc_kind kind;
	int status;
	uint32_t len;
	void *ctx;
};

struct pt_net;

/* One RDMAP queue pair on its own MPA connection or SCTP stream, with a
 * completion queue that link.c fills from the library's callbacks. */
struct pt_qp {
	struct pt_net *net;
	ddp_rdmap_qp *qp;
	ddp_session *s;
	uint32_t stream;
	void *llp; /* ddp_mpa_conn, or NULL over SCTP */
	struct pt_wc *cq;
	size_t cq_cap, cq_head, cq_len;
	int data;                    /* a test queue pair (PD-bound), not the control one */
	int responder_gated;         /* MPA Responder without peer-to-peer mode: it may send
	                              * nothing before the Initiator's first FPDU */
	int down;                    /* the stream stopped */
	int rejected;                /* MPA: the Responder refused the Request */
	int closed;                  /* the LLP connection ended */
	uint16_t want_ird, want_ord; /* SCTP client: asked for in the Initiate */
	uint8_t rbuf[64];            /* the control queue pair's one receive buffer */
	char why[160];
};

/* Error reporting: pt_fail() records the first reason and returns -1. */
int pt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *pt_reason(void);

int pt_net_new(const struct pt_opts *o, struct pt_net **out);
void pt_net_free(struct pt_net *n);
/* The next queue pair: the client connects one, the server waits for the
 * peer's next one. data: bound to the test PD (STags usable on every test
 * queue pair), ird/ord: RDMA Read depths asked for. */
int pt_open(struct pt_net *n, int data, uint16_t ird, uint16_t ord, struct pt_qp **out);
/* Run the event loop once (blocking until something happened or the
 * deadline). Returns -1 (with a reason) once the deadline passed. */
int pt_pump(struct pt_net *n);
/* Pop one completion, waiting for it; what names the step for errors. */
int pt_wait_wc(struct pt_qp *q, struct pt_wc *wc, const char *what);
/* Pop one completion if there is one (1), 0 if none. */
int pt_poll(struct pt_qp *q, struct pt_wc *wc);
/* Close every connection in order and wait (bounded) for the ends. */
void pt_close_all(struct pt_net *n);
ddp_ctx *pt_ctx(struct pt_net *n);
ddp_pd *pt_pd(struct pt_net *n);
/* Register len octets at buf for the test PD; 0 or -1. */
int pt_reg(struct pt_net *n, void *buf, size_t len, uint32_t *stag);
uint64_t pt_now_ns(void);

/* ---------------------------------------------------------------- comm.c */

/* perftest's struct pingpong_dest (perftest_resources.h), the fields we
 * use; on the wire 56 octets, integers big-endian. */
struct pt_dest {
	uint32_t lid, out_reads, qpn, psn, rkey;
	uint64_t vaddr;
	uint8_t gid[16];
	uint32_t srqn, gid_index;
};
#define PT_DEST_WIRE 56

struct pt_report { /* perftest's struct bw_report_data, as exchanged */
	uint64_t size, iters;
	double bw_peak, bw_avg, msg_rate;
};

struct pt_comm {
	struct pt_qp *qp;
	int client;
	int debug;
	uint8_t sbuf[64];
	char peer_version[17];
	unsigned step;
};

/* One exchange of len octets (client sends first, as perftest). */
int pt_xchg(struct pt_comm *c, const void *mine, void *theirs, size_t len, const char *what);
int pt_xchg_versions(struct pt_comm *c, struct pt_opts *o);
int pt_hand_shake(struct pt_comm *c, const struct pt_dest *mine, struct pt_dest *theirs,
                  const char *what);
int pt_xchg_report(struct pt_comm *c, const struct pt_report *mine, struct pt_report *theirs);

/* ---------------------------------------------------------------- report.c */

void pt_print_header(const struct pt_opts *o);
void pt_print_table_head(const struct pt_opts *o);
void pt_print_line(void);
/* ns timestamps: posted[i], completed[i] for n messages of size octets. */
/* n messages of size octets from t0 to t1 (ns); with posted/completed (the
 * n post and completion times) also the peak. */
void pt_bw_report(const struct pt_opts *o, uint64_t size, uint64_t n, uint64_t t0, uint64_t t1,
                  const uint64_t *posted, const uint64_t *completed, struct pt_report *out);
void pt_print_bw(const struct pt_opts *o, const struct pt_report *r);
int pt_print_lat(const struct pt_opts *o, uint64_t size, uint64_t iters, const uint64_t *posted,
                 int rtt_factor);

/* ---------------------------------------------------------------- bw.c, lat.c */

/* One test queue pair's memory: the advertised region (perftest's
 * my_dest.vaddr/rkey) and the send credits of send_bw. */
struct pt_mem {
	uint8_t *buf;
	size_t len;
	uint32_t stag;
};

struct pt_test_ctx {
	struct pt_opts *o;
	struct pt_net *net;
	struct pt_comm *comm;
	int nqp;
	struct pt_qp **qp;
	struct pt_mem *mem;  /* per queue pair */
	struct pt_dest *rem; /* the peer's per queue pair */
	uint32_t *credit;    /* send_bw: q counters the peer writes (ours) */
	uint32_t *ctrl;      /* send_bw: q counters we write (receiver) */
	uint32_t credit_stag;
	uint64_t *rposted; /* send_bw receiver: buffers posted per queue pair */
};

int pt_bw_client(struct pt_test_ctx *t, uint64_t size, struct pt_report *rep);
int pt_send_server(struct pt_test_ctx *t, uint64_t size, struct pt_report *rep);
/* send_bw receiver: post the receive buffers of one size. */
int pt_send_post_recvs(struct pt_test_ctx *t, uint64_t size);
int pt_lat_run(struct pt_test_ctx *t, uint64_t size);

#endif
