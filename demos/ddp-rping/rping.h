/* ddp-rping: rdma-core's rping exchange over libddp-rdmap. rping.c owns the
 * exchange (buffers, the state machine of both roles); main.c the options
 * and the LLP set-up (MPA or SCTP). */
#ifndef DDP_RPING_H
#define DDP_RPING_H

#include <stdint.h>

#include <ddp/rdmap.h>

struct rping_opts {
	int server, verbose, validate, debug;
	const char *addr;
	int port;
	long count;	/* -C: iterations (client; server: expected, 0 = any) */
	uint32_t size;	/* -S */
	int sctp, mpa_crc;
	int wrong_rkey;	/* interop tests: the Write (server) / sink advertised
			 * (client) names a wrong STag, so the peer's
			 * Terminate path runs */
};

struct rping;

/* The exchange on one connected stream; fin(rc, reason) is called once
 * when it ended (rc 0: all iterations completed and verified). */
struct rping *rping_new(const struct rping_opts *o, ddp_rdmap_dev *dev, ddp_session *s,
			uint32_t stream, uint32_t ird, uint32_t ord,
			void (*fin)(int rc, const char *reason));
/* The LLP ended (status 0: in order). */
void rping_llp_down(struct rping *r, int status);
void rping_free(struct rping *r);
long rping_iterations(const struct rping *r);

#endif
