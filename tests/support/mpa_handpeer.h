/* An MPA/TCP connection of ours whose peer is a plain socket the test
 * plays by hand (tests of slow, stalled and vanished peers): what happened
 * to our end (its callbacks count it), the peer's moves (answer the MPA
 * Request, read what arrived) and our sender kept full. Also an event
 * base and a ddp_ctx whose log is kept for the test to read. Not linked
 * into the libFuzzer builds. */
#ifndef DDP_TEST_MPA_HANDPEER_H
#define DDP_TEST_MPA_HANDPEER_H

#include <stdint.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>

struct event_base;

/* Our end: the user pointer of its callbacks. */
struct handpeer {
	ddp_mpa_conn *c;
	int connected, failed, fail_err; /* DDP_MPA_CONNECTED; any other event, its err */
	int stream_err;			 /* the first negative stream_event status */
	long done_ok, done_bad;		 /* send_done with status 0 / not 0 */
	double t_failed;		 /* net_now_s() at the failure */
};

/* deliver (ignored), send_done and stream_event, counted in the handpeer. */
extern const ddp_callbacks handpeer_cbs;
/* The connection's event callback, counted in the handpeer. */
void handpeer_on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user);

/* Revision 1, dead_peer_timeout_ms dead_ms, 64 sends queued at most. */
ddp_mpa_config handpeer_config(unsigned dead_ms);

/* The peer's side of the MPA start-up on fd: read the Request (running
 * base meanwhile, up to 5 s), answer an accepting Reply (revision 1, CRC,
 * no private data) and run base until *connected (up to 5 s; e.g. a
 * handpeer's connected). Returns 0, or -1 (no whole Request with the
 * right key, or no connection). */
int handpeer_respond(struct event_base *base, int fd, const int *connected);

/* Octets of each send handpeer_top_up() queues. */
#define HANDPEER_PAYLOAD 16384
/* Queue untagged sends on stream 0 until the core refuses one. */
void handpeer_top_up(struct handpeer *p);
/* The peer reads what has arrived on fd, most octets at most, without
 * blocking. Returns how many it read. */
uint64_t handpeer_drain(int fd, uint64_t most);

/* The log of the ctx made by handpeer_env_new, one message a line. */
extern char handpeer_log[4096];
/* A new event base and ddp_ctx (logging into handpeer_log, emptied).
 * Returns 0 or -1. */
int handpeer_env_new(struct event_base **base, ddp_ctx **ctx);
/* Free both. Returns 0, or -1 when ddp_ctx_free refused. */
int handpeer_env_free(struct event_base *base, ddp_ctx *ctx);

#endif
