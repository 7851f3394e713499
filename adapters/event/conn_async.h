/*
 * The asynchronous connect of the one adapter model (conn_setup.c), seen from the handle
 * ddp_connecting: the name resolves (conn_resolve.h), then the owner connects to the answer; until
 * the connection is up or down, ddp_connect_cancel stops whichever step is under way and no
 * callback follows. The owner is the glue that embeds this; it is one calloc'd block freed with
 * free() when the connect ends before it started (a name that does not resolve, a cancel while
 * resolving, a connect that fails at once).
 */
#ifndef DDP_EV_CONN_ASYNC_H
#define DDP_EV_CONN_ASYNC_H

#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <event2/dns.h>
#include <event2/event.h>

#include "conn_glue.h"
#include "event/conn_resolve.h"

struct conn_async {
	ddp_connecting h; /* the application's handle */
	struct conn_resolve r;
	int resolving;    /* the name is being resolved */
	int connecting;   /* dial() succeeded; the owner clears it at up or down */
	ddp_conn_glue *g; /* the owner's: down(NULL, err) when the connect fails */
	void *owner;      /* the block to free() when nothing was set up */
	/* the owner's: start the connection to sa (0, or an error: then the
	 * owner holds nothing but its block) */
	int (*dial)(struct conn_async *a, const struct sockaddr *sa, socklen_t sl);
	/* the owner's: the connection being set up goes, with no callback
	 * (g->dead is set before this runs) */
	void (*stop)(struct conn_async *a);
};

void conn_async_init(struct conn_async *a, void *owner, ddp_conn_glue *g,
                     int (*dial)(struct conn_async *a, const struct sockaddr *sa, socklen_t sl),
                     void (*stop)(struct conn_async *a));

/* Resolve host:port (socktype SOCK_STREAM or SOCK_DGRAM), then connect.
 * Returns 0 with *out (if out) the handle, or DDP_ERR_INVAL /
 * DDP_ERR_NOMEM: then the owner is freed and nothing runs later. */
int conn_async_by_name(struct conn_async *a, struct event_base *base, struct evdns_base *dns,
                       const char *host, int port, int socktype, ddp_connecting **out);

/* Connect to sa at once. Returns 0 with *out (if out) the handle, or the
 * owner's dial() error: then the owner is freed. */
int conn_async_by_addr(struct conn_async *a, const struct sockaddr *sa, socklen_t sl,
                       ddp_connecting **out);

#endif
