/*
 * relay.h — the relay's shared types. Threads: every worker owns an
 * event_base, a ddp_ctx, its listeners, its connections and its topic
 * table; only its own thread touches them. What crosses threads: struct
 * xmsg through a worker's inbox (xthread.c) and the interest bits of
 * struct relay (atomics).
 */
#ifndef PUBSUB_RELAY_H
#define PUBSUB_RELAY_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_barrier_t, eventfd under -std=c11 */
#endif

#include "proto.h"

#include <ddp/ddp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

struct event;
struct event_base;
struct worker;
struct conn;

/* A published message as one worker holds it: the payload is read only, and
 * stays valid while refs > 0; release runs on that worker when the last
 * holder lets go. */
struct msg {
	const uint8_t *data;
	uint32_t len, topic;
	int refs;
	void (*release)(struct msg *m);
};

static inline void msg_get(struct msg *m) { m->refs++; }
static inline void msg_put(struct msg *m)
{
	if (--m->refs == 0)
		m->release(m);
}

/* A receive buffer posted on a connection's stream: a message arrives in
 * it and is forwarded from it, without a copy, to every subscriber. */
struct rbuf {
	struct msg m;
	struct conn *owner;
	uint32_t stream;
	uint8_t data[PS_MAX_MSG];
};

/* One message on its way to one subscriber: in flight (handed to DDP,
 * send_done pending) or in the backlog (refused with DDP_ERR_LIMIT). */
struct out {
	struct out *prev, *next;
	struct msg *m;
	uint32_t stream;
};
struct outq {
	struct out head; /* sentinel of a circular list */
	uint32_t n;
};

struct conn {
	struct worker *w;
	struct conn *prev, *next; /* the worker's connections */
	ddp_session *s;		  /* NULL once down */
	char peer[64];
	int role;		  /* 0 until HELLO, enum ps_role */
	uint32_t nstreams;
	struct rbuf **bufs;	  /* nstreams arrays of PS_CREDITS, posted at stream_open */
	uint32_t *credit;	  /* per stream: reposted, not yet credited */
	uint32_t held;		  /* buffers out at subscribers + callbacks running */
	uint32_t *topics, ntopics; /* a subscriber's topics */
	struct outq inflight, backlog;
	uint64_t progress_ms;	  /* last send_done, or when the first out was queued */
	uint64_t msgs_in, msgs_out;
	int dropping;
};

/* Subscribers of one topic on one worker. */
struct sublist {
	struct conn **v;
	uint32_t n, cap;
};

struct relay;

struct worker {
	int id;
	struct relay *r;
	pthread_t thread;
	struct event_base *base;
	ddp_ctx *ctx;
	ddp_listener *mpa, *sctp;
	struct conn *conns;
	struct sublist topics[PS_MAX_TOPICS];
	struct event *tick; /* drops stalled subscribers */
	uint64_t msgs_in, msgs_out, dropped;
	/* inbox (xthread.c): the only part other threads touch */
	pthread_mutex_t lock;
	struct xmsg *head, *tail;
	int efd;
	struct event *wake;
	atomic_int stop;
	int failed;
};

struct relay {
	const char *host;
	int mpa_port, sctp_port;
	unsigned drop_ms;
	uint32_t queue; /* max_tx_queued of every session */
	int nworkers;
	struct worker *w;
	pthread_barrier_t ready;
	/* per topic: bit i set while worker i has a subscriber of it */
	_Atomic uint64_t interest[PS_MAX_TOPICS];
};
#define RELAY_MAX_WORKERS 64

uint64_t now_ms(void);

/* conn.c: the ULP callbacks of every connection, on both LLPs */
extern const struct ddp_conn_callbacks relay_ulp;
void conn_check_stalled(struct worker *w);
void conn_abort_all(struct worker *w);

/* topic.c: subscriptions and fan-out on one worker */
int topic_subscribe(struct worker *w, struct conn *c, uint32_t topic);
void topic_unsubscribe_all(struct worker *w, struct conn *c);
void topic_publish(struct worker *w, struct msg *m);
void sub_flush(struct conn *c);
void sub_send_done(struct conn *c, struct out *o, int status);
void sub_release_all(struct conn *c);
void outq_init(struct outq *q);

/* xthread.c: messages between workers */
int xq_init(struct worker *w);
void xq_fini(struct worker *w);
void xq_wake(struct worker *w);
void xforward(struct worker *w, struct rbuf *b);

#endif
