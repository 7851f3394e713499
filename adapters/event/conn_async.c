/* The asynchronous connect of the one-model glue (conn_async.h). */
#include "event/conn_async.h"

static void conn_async_cancel(struct ddp_connecting *h)
{
	struct conn_async *a = (struct conn_async *)((char *)h - offsetof(struct conn_async, h));
	if (a->resolving) {
		a->resolving = 0;
		if (conn_resolve_cancel(&a->r))
			free(a->owner); /* else conn_async_gone() frees it */
	} else if (a->connecting) {
		a->connecting = 0;
		a->g->dead = 1;
		a->stop(a);
	}
}

void conn_async_init(struct conn_async *a, void *owner, ddp_conn_glue *g,
                     int (*dial)(struct conn_async *a, const struct sockaddr *sa, socklen_t sl),
                     void (*stop)(struct conn_async *a))
{
	a->h.cancel = conn_async_cancel;
	a->owner = owner;
	a->g = g;
	a->dial = dial;
	a->stop = stop;
}

static int conn_async_connect(struct conn_async *a, const struct sockaddr *sa, socklen_t sl)
{
	int rc = a->dial(a, sa, sl);
	if (rc == 0)
		a->connecting = 1;
	return rc;
}

static void conn_async_gone(struct conn_resolve *r)
{
	free(((struct conn_async *)((char *)r - offsetof(struct conn_async, r)))->owner);
}

/* The name resolved (from the loop): connect, or down() with the reason */
static void conn_async_resolved(struct conn_resolve *r)
{
	struct conn_async *a = (struct conn_async *)((char *)r - offsetof(struct conn_async, r));
	a->resolving = 0;
	int rc = r->result ? r->result : conn_async_connect(a, (struct sockaddr *)&r->ss, r->sl);
	if (rc) {
		a->g->dead = 1;
		a->g->cb.down(NULL, rc, a->g->user);
		free(a->owner);
	}
}

/* Resolve host:port (socktype SOCK_STREAM or SOCK_DGRAM), then connect.
 * Returns 0 with *out (if out) the handle, or DDP_ERR_INVAL /
 * DDP_ERR_NOMEM: then the owner is freed and nothing runs later. */
int conn_async_by_name(struct conn_async *a, struct event_base *base, struct evdns_base *dns,
                       const char *host, int port, int socktype, ddp_connecting **out)
{
	int rc = conn_resolve_start(&a->r, base, dns, host, port, socktype, conn_async_resolved,
	                            conn_async_gone);
	if (rc) {
		free(a->owner);
		return rc;
	}
	a->resolving = 1;
	if (out)
		*out = &a->h;
	return 0;
}

/* Connect to sa at once. Returns 0 with *out (if out) the handle, or the
 * owner's dial() error: then the owner is freed. */
int conn_async_by_addr(struct conn_async *a, const struct sockaddr *sa, socklen_t sl,
                       ddp_connecting **out)
{
	int rc = conn_async_connect(a, sa, sl);
	if (rc) {
		free(a->owner);
		return rc;
	}
	if (out)
		*out = &a->h;
	return 0;
}
