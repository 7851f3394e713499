/* ddp-xfer: state shared by the program's modules.
 *
 *   main.c      options, event loop, progress, failure reporting
 *   send.c      the sending ULP        recv.c    the receiving ULP
 *   net_mpa.c   MPA/TCP: N connections net_sctp.c SCTP: 1 association
 *   proto.c     wire messages          digest.c  SHA-256 (libcrypto EVP)
 *   worker.c    the thread that reads/writes the file and hashes, in order
 */
#ifndef DDP_XFER_H
#define DDP_XFER_H

#include <ddp/ddp.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct event_base;

enum xf_llp { XF_LLP_MPA, XF_LLP_SCTP };

struct xf_opts {
	int sender;	   /* 1: send, 0: recv */
	enum xf_llp llp;
	char host[64];	   /* --listen / --connect address */
	int port;
	const char *file;  /* send: the file */
	const char *out;   /* recv: --out, or NULL */
	unsigned streams;  /* send: --streams */
	unsigned depth;	   /* buffers per stream (recv: advertised, send: in flight) */
	uint32_t chunk;	   /* octets per buffer / tagged write */
	unsigned timeout;  /* seconds without news from the peer */
	uint32_t mtu;	   /* --mtu: SCTP path MTU, 0 = the adapter's default */
};

/* One DDP stream of the transfer, whatever the LLP. */
struct xf_stream {
	ddp_session *s;	   /* NULL until the LLP made it */
	uint32_t st;	   /* DDP stream index inside s */
	void *conn;	   /* the LLP's object (ddp_mpa_conn *), or NULL */
	int joined;	   /* recv: accepted; send: prepared */
	int finished;	   /* the ULP is done with it (result sent / got) */
	uint64_t bytes;	   /* file octets carried on it */
	uint32_t chunks;   /* chunks carried on it */
	void *role;	   /* send.c / recv.c per-stream state */
};

struct xf_main {
	struct event_base *base;
	ddp_ctx *ctx;
	struct xf_opts o;
	unsigned nstreams;	/* streams of the transfer (recv: from hello) */
	struct xf_stream str[XF_MAX_STREAMS];
	uint64_t total;		/* file size (recv: once known, else 0) */
	int total_known;
	uint64_t progress;	/* octets placed and accounted */
	int failed, succeeded;
	int lingering;		/* xf_fail_notify: closing in order */
	double last_heard, t0;
};

extern struct xf_main xf;

/* Report the first failure as one "ddp-xfer: <reason>" line, exit code 1,
 * and stop the loop. Later calls are ignored. */
void xf_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like xf_fail, but the loop goes on until the connections closed in order
 * (at most 5 s): for a failure the peer must hear about through messages
 * queued just before (the receiver's ABORT). */
void xf_fail_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the result line "sha256 <hex> bytes <n>" on stdout. */
void xf_print_result(const uint8_t d[XF_SHA256_LEN], uint64_t n);
/* The ULP is done and verified: close the LLP in order and leave. */
void xf_succeed(void);
/* The peer showed a sign of life (resets the idle timeout). */
void xf_heard(void);
double xf_now(void);
/* Stream of (s, st), or NULL. */
struct xf_stream *xf_find(const ddp_session *s, uint32_t st);
/* Text of an error report for messages. */
const char *xf_err_text(const ddp_error_info *e, char *buf, size_t n);

/* ---- the two ULP roles (send.c, recv.c) */
extern const ddp_callbacks xf_send_callbacks;
extern const ddp_callbacks xf_recv_callbacks;
/* send: open the file (errors are reported with xf_fail). */
int xf_send_init(void);
/* send: hello (private data) of stream idx. */
void xf_send_hello(unsigned idx, uint8_t pd[XF_HELLO_LEN]);
/* send: the LLP made stream idx (s, st): post its buffers. 0 or DDP_ERR_*. */
int xf_send_prepare(unsigned idx, ddp_session *s, uint32_t st, void *conn);
/* send: stream idx may carry data now (MPA: at once, sends wait for full
 * operation; SCTP: after the Accept). */
void xf_send_open(unsigned idx);
/* recv: open --out. */
int xf_recv_init(void);
/* recv: a stream asks to join with private data pd. On 0 its buffers are
 * registered and posted, *idx is its index; on < 0 refuse it (*why says
 * why, static text). */
int xf_recv_join(ddp_session *s, uint32_t st, void *conn, const uint8_t *pd, size_t len,
		 unsigned *idx, const char **why);
/* recv: stream idx was accepted: advertise its buffers. */
void xf_recv_start(unsigned idx);
/* Free role resources (after the LLP objects are gone). */
void xf_send_free(void);
void xf_recv_free(void);

/* ---- the two LLPs (net_mpa.c, net_sctp.c) */
struct xf_net {
	int (*start)(void);	  /* listen or connect; xf_fail on error */
	void (*finish)(void);	  /* after xf_succeed: orderly close */
	int (*all_closed)(void);  /* every connection ended */
	void (*free)(void);	  /* tear everything down */
};
extern const struct xf_net xf_net_mpa, xf_net_sctp;
struct ddp_sctp_config;
/* SCTP failure detection of an endpoint for --timeout SECONDS: an
 * association outlives any shorter silence (net_sctp.c). */
void xf_sctp_liveness(unsigned timeout_s, struct ddp_sctp_config *cfg);
/* A connection / association of the transfer ended (LLP layer). */
void xf_net_closed(void);

#endif
