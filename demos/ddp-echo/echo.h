/* ddp-echo: the echo ULP, independent of the LLP. Each DDP session gets an
 * echo_conn; its streams get posted buffers on every QN; every untagged
 * message is sent back on the same stream with the same QN and RsvdULP
 * (the core picks our own MSN sequence) and its buffer is re-posted when
 * the send completes. What is echoed is the delivered message, every octet
 * of which the peer placed (the core delivers no other); buffers start
 * zeroed, so none holds an earlier session's data, and all of them
 * together stay under a cap (a peer's Initiates cannot take more). */
#ifndef DDP_ECHO_H
#define DDP_ECHO_H

#include <ddp/ddp.h>
#include <stdint.h>

struct echo_stats {
	uint64_t sessions, active, msgs, bytes, errors;
};

struct echo_conn;

/* The DDP callbacks of every echo session; their user is the echo_stats. */
extern const ddp_callbacks echo_callbacks;

/* Track session s (label for logs); buffers of buf_size octets, depth per
 * (stream, QN). Returns NULL on allocation failure. */
struct echo_conn *echo_conn_new(ddp_session *s, const char *label, struct echo_stats *st,
				size_t buf_size, unsigned depth);
/* Post the buffers of one stream (idempotent). Returns 0 or DDP_ERR_*:
 * DDP_ERR_LIMIT when its buffers would take the buffer memory of all
 * sessions past the cap (echo_set_memory_cap; nothing is allocated). */
int echo_stream_start(struct echo_conn *c, uint32_t stream);
/* Octets of receive buffers one stream takes (3 queues x depth x size). */
uint64_t echo_stream_bytes(const struct echo_conn *c);
/* The cap on the receive buffers of all sessions together (0: none), and
 * what they take now. */
void echo_set_memory_cap(uint64_t bytes);
uint64_t echo_memory_cap(void);
uint64_t echo_memory_used(void);
/* Forget the session: call after its last callback, before it is freed. */
void echo_conn_free(struct echo_conn *c);
/* The echo_conn of a session, or NULL. */
struct echo_conn *echo_find(const ddp_session *s);
/* The label of a session's echo_conn ("?" when unknown). */
const char *echo_label(const ddp_session *s);

#endif
