/* A ULP for the one adapter model (ddp_conn_callbacks) that counts what
 * happens to one end of a connection, for integration tests that run the
 * same case over MPA/TCP and SCTP: up, stream_open (posting receive
 * buffers on stream 0), down with its status; a stream the peer
 * half-closes is closed from this side too. Also the setup calls of both
 * LLPs behind one switch. Not linked into the libFuzzer builds. */
#ifndef DDP_TEST_CONN_ULP_H
#define DDP_TEST_CONN_ULP_H

#include <stdint.h>

#include <ddp/ddp.h>
#include <ddp/llp.h>
#include <ddp/sctp.h>

struct event_base;

/* One end: the callbacks' user pointer. */
struct conn_end {
	ddp_session *s; /* between up and down */
	int ups, downs, status, opens;
	uint8_t buf[4][64]; /* posted on stream 0 at stream_open */
	/* if set, *handle is cleared at up and at down (the connect's handle
	 * is gone then) */
	ddp_connecting **handle;
};

/* up, stream_open, down and stream_event as above; deliver ignores. */
extern const ddp_conn_callbacks conn_ulp;

/* stream_event: a stream the peer half-closed is closed from here too. */
void conn_ulp_stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev,
			   int status, void *user);

/* Run base until *count >= want or secs pass. */
void conn_ulp_wait(struct event_base *base, const int *count, int want, double secs);

enum conn_llp { CONN_MPA, CONN_SCTP };

/* ddp_mpa_listen_on (default MPA settings) or ddp_sctp_listen_on (sc);
 * returns what it returns. */
int conn_listen_on(enum conn_llp llp, struct event_base *base, ddp_ctx *ctx, const char *host,
		   const ddp_sctp_config *sc, const ddp_conn_callbacks *cb, void *user,
		   ddp_listener **out);
/* ddp_mpa_connect_to or ddp_sctp_connect_to, as conn_listen_on. */
int conn_connect_to(enum conn_llp llp, struct event_base *base, ddp_ctx *ctx, const char *host,
		    int port, const ddp_sctp_config *sc, const ddp_conn_callbacks *cb, void *user);

#endif
