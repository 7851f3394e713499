/* Name resolution for the asynchronous connects (conn_resolve.h). */
#include "event/conn_resolve.h"

static void conn_resolve_answered(int result, struct evutil_addrinfo *res, void *arg)
{
	struct conn_resolve *r = arg;
	r->asking = 0;
	r->req = NULL;
	if (r->canceled) { /* its owner is waiting for this to go */
		if (res)
			evutil_freeaddrinfo(res);
		event_active(r->answer, EV_TIMEOUT, 1);
		return;
	}
	r->result = result == 0 && res            ? 0
	            : result == EVUTIL_EAI_SYSTEM ? DDP_ERR_SYS
	                                          : DDP_ERR_NOENT;
	if (r->result == 0 && res->ai_addrlen <= sizeof(r->ss)) {
		memcpy(&r->ss, res->ai_addr, res->ai_addrlen);
		r->sl = (socklen_t)res->ai_addrlen;
	} else if (r->result == 0) {
		r->result = DDP_ERR_NOENT;
	}
	if (res)
		evutil_freeaddrinfo(res);
	event_active(r->answer, EV_TIMEOUT, 1);
}

static void conn_resolve_free(struct conn_resolve *r)
{
	if (r->answer)
		event_free(r->answer);
	r->answer = NULL;
	if (r->own)
		evdns_base_free(r->own, 1);
	r->own = NULL;
}

static void conn_resolve_deliver(evutil_socket_t fd, short what, void *arg)
{
	struct conn_resolve *r = arg;
	(void)fd, (void)what;
	conn_resolve_free(r); /* outside evdns' callback: its base may go */
	if (r->canceled)
		r->gone(r);
	else
		r->done(r);
}

/* Ask for host:port (socktype SOCK_STREAM or SOCK_DGRAM). Returns 0 (done
 * runs later from the loop), DDP_ERR_INVAL or DDP_ERR_NOMEM. */
int conn_resolve_start(struct conn_resolve *r, struct event_base *base, struct evdns_base *dns,
                       const char *host, int port, int socktype,
                       void (*done)(struct conn_resolve *r), void (*gone)(struct conn_resolve *r))
{
	char serv[8];
	struct evutil_addrinfo hints;
	memset(r, 0, sizeof(*r));
	if (!base || !host || port <= 0 || port > 65535)
		return DDP_ERR_INVAL;
	r->done = done;
	r->gone = gone;
	r->answer = event_new(base, -1, 0, conn_resolve_deliver, r);
	if (!r->answer)
		return DDP_ERR_NOMEM;
	if (!dns) {
		r->own = evdns_base_new(base, EVDNS_BASE_INITIALIZE_NAMESERVERS |
		                                  EVDNS_BASE_DISABLE_WHEN_INACTIVE);
		if (!r->own) {
			conn_resolve_free(r);
			return DDP_ERR_NOMEM;
		}
		dns = r->own;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = socktype;
	hints.ai_flags = EVUTIL_AI_ADDRCONFIG;
	snprintf(serv, sizeof(serv), "%d", port);
	r->asking = 1;
	r->req = evdns_getaddrinfo(dns, host, serv, &hints, conn_resolve_answered, r);
	return 0;
}

/* No done() after this. Returns 1 when everything the request held is
 * freed now (the owner may go), 0 when evdns still has to answer the
 * cancel (from the loop): gone() says when the owner may go. */
int conn_resolve_cancel(struct conn_resolve *r)
{
	if (r->asking) {
		r->canceled = 1;
		if (r->req)
			evdns_getaddrinfo_cancel(r->req); /* answers, later */
		return 0;
	}
	if (r->answer)
		event_del(r->answer);
	conn_resolve_free(r);
	return 1;
}
