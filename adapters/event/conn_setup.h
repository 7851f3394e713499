/*
 * The one adapter model of ddp.h (*_connect_to, *_connect_async,
 * *_connect_addr, *_listen_on, ddp_connecting, ddp_listener), written once
 * for both LLPs. An LLP gives a binding (struct conn_setup_ops): how to
 * take its settings, how to dial, how to listen, how to stop a connect
 * under way, how to stop listening; and it reports what happens to its
 * connections through conn_setup_up(), conn_setup_open() and
 * conn_setup_down(). Name resolution, the connect handle, the listener
 * handle, the references and the deferred free are here.
 *
 * What a connection owns, one rule for both LLPs. A setup block belongs
 * either to one outgoing connection (one reference, dropped at its
 * down()) or to a listener (one reference for the listener, dropped by
 * ddp_listener_free(), and one for each of its connections that is up,
 * dropped at that connection's down()). The ULP's callbacks and user
 * pointer live in the block and are silenced only when nothing can call
 * them any more: after an outgoing connection's down(), or when the last
 * reference of a listener goes. So a listener's connection keeps hearing
 * every event until its own down(), whether the listener was freed or a
 * sibling connection went down first; the adapter silences the one
 * connection that went down by freeing it.
 *
 * This header names no libevent or socket type beyond opaque pointers:
 * an LLP's binding needs neither.
 */
#ifndef DDP_EV_CONN_SETUP_H
#define DDP_EV_CONN_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include <ddp/ddp.h>

struct event_base;
struct evdns_base;
struct sockaddr;
struct conn_setup;

/* Where to dial or listen, resolved: the address with its port (sa,
 * salen), its numeric host (NULL for a listener given no host: every
 * address), the port, and the wildcard address of sa's family. Valid
 * during the call it is given to. */
struct conn_where {
	const struct sockaddr *sa;
	unsigned int salen;
	const char *host;
	int port;
	const char *any;
};

/* An LLP's binding. The LLP's callbacks get the setup block as their user
 * pointer and ddp_conn_trampolines() (conn_glue.h) as their DDP callbacks:
 * the block starts with the ddp_conn_glue the trampolines read. */
struct conn_setup_ops {
	/* the binding's own state (conn_setup_llp), zeroed; it starts with
	 * the LLP's settings struct of cfg_size octets, filled from the
	 * caller's (ddp/export.h "Struct sizes": cfg_holds says the struct
	 * holds other structs), all zero when the caller gave none */
	size_t llp_size;
	size_t cfg_size;
	int cfg_holds;
	int datagram; /* the LLP runs over UDP: resolve names for it */
	/* Complete the settings (given: the caller gave some; else the
	 * defaults). 0 or DDP_ERR_INVAL. */
	int (*init)(struct conn_setup *cs, int given);
	/* Start the connection to w. 0, or an error: then the binding holds
	 * nothing. */
	int (*dial)(struct conn_setup *cs, const struct conn_where *w);
	/* Listen on w. 0, or an error: then the binding holds nothing. */
	int (*listen)(struct conn_setup *cs, const struct conn_where *w);
	/* ddp_connect_cancel() while dial()'s connection is being set up: it
	 * goes, no callback follows. NULL: nothing beyond release(). */
	void (*stop)(struct conn_setup *cs);
	/* ddp_listener_free(): no new connection. */
	void (*unlisten)(struct conn_setup *cs);
	/* ddp_listener_port() */
	int (*port)(const struct conn_setup *cs);
	/* The last reference went: what the binding holds for the whole block
	 * goes (inside a callback as its LLP allows). NULL: nothing. */
	void (*release)(struct conn_setup *cs);
};

/* The one-model calls, for an LLP's binding; cfg is the LLP's settings
 * struct (NULL: defaults), sizes the struct sizes of the public call
 * (cfg first, cb second). Errors as ddp.h and the LLP's header say:
 * DDP_ERR_INVAL, DDP_ERR_NOENT, DDP_ERR_NOMEM, DDP_ERR_UNSUPPORTED (a
 * struct larger than this release's), or the binding's. */
int conn_setup_connect_to(const struct conn_setup_ops *ops, struct event_base *base, ddp_ctx *ctx,
                          const char *host, int port, const void *cfg, const ddp_conn_callbacks *cb,
                          void *user, uint64_t sizes);
int conn_setup_connect_async(const struct conn_setup_ops *ops, struct event_base *base,
                             ddp_ctx *ctx, struct evdns_base *dns, const char *host, int port,
                             const void *cfg, const ddp_conn_callbacks *cb, void *user,
                             ddp_connecting **out, uint64_t sizes);
int conn_setup_connect_addr(const struct conn_setup_ops *ops, struct event_base *base, ddp_ctx *ctx,
                            const struct sockaddr *sa, unsigned int salen, const void *cfg,
                            const ddp_conn_callbacks *cb, void *user, ddp_connecting **out,
                            uint64_t sizes);
int conn_setup_listen_on(const struct conn_setup_ops *ops, struct event_base *base, ddp_ctx *ctx,
                         const char *host, int port, const void *cfg, const ddp_conn_callbacks *cb,
                         void *user, ddp_listener **out, uint64_t sizes);

/* The binding's state, and what the block was made with. */
void *conn_setup_llp(struct conn_setup *cs);
const void *conn_setup_llp_const(const struct conn_setup *cs);
struct event_base *conn_setup_base(const struct conn_setup *cs);
ddp_ctx *conn_setup_ctx(const struct conn_setup *cs);
/* 1: an outgoing connection's block; 0: a listener's. */
int conn_setup_outgoing(const struct conn_setup *cs);

/* What happens to a connection of the block, from the LLP's callbacks:
 * up (s ready, no stream open), a DDP stream open for traffic, and the
 * connection's end (s NULL when nothing was ever set up). status of down:
 * 0 for a graceful end (the LLP's own graceful code, DDP_ERR_CLOSED, is
 * taken as 0), else DDP_ERR_*. After conn_setup_down() the binding may
 * still read its state in the same callback frame: the block goes on the
 * next pass of the loop at the earliest. */
void conn_setup_up(struct conn_setup *cs, ddp_session *s);
void conn_setup_open(struct conn_setup *cs, ddp_session *s, uint32_t stream);
void conn_setup_down(struct conn_setup *cs, ddp_session *s, int status);

#endif
