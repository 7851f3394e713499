/*
 * Name resolution for the asynchronous connects of both adapters
 * (ddp_mpa_connect_async, ddp_sctp_connect_async): evdns_getaddrinfo on
 * the application's evdns_base, or on one made for the request and freed
 * with it. The answer always comes back from the event loop, never inside
 * the call that asked (evdns answers a numeric host or /etc/hosts at once).
 */
#ifndef DDP_EV_CONN_RESOLVE_H
#define DDP_EV_CONN_RESOLVE_H

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/dns.h>
#include <event2/event.h>
#include <event2/util.h>

#include <ddp/ddp.h>

struct conn_resolve {
	struct evdns_base *own; /* made for this request */
	struct evdns_getaddrinfo_request *req;
	struct event *answer; /* the answer, handed over from the loop */
	int asking;           /* evdns has not answered yet */
	int canceled;         /* conn_resolve_cancel() while asking */
	int result;           /* 0, DDP_ERR_NOENT or DDP_ERR_SYS */
	struct sockaddr_storage ss;
	socklen_t sl;
	void (*done)(struct conn_resolve *r); /* from the loop, once */
	/* after a cancel evdns still answers (EVUTIL_EAI_CANCEL, from the
	 * loop): then, with nothing of the request left, the owner frees */
	void (*gone)(struct conn_resolve *r);
};

/* Ask for host:port (socktype SOCK_STREAM or SOCK_DGRAM). Returns 0 (done
 * runs later from the loop), DDP_ERR_INVAL or DDP_ERR_NOMEM. */
int conn_resolve_start(struct conn_resolve *r, struct event_base *base, struct evdns_base *dns,
                       const char *host, int port, int socktype,
                       void (*done)(struct conn_resolve *r), void (*gone)(struct conn_resolve *r));

/* No done() after this. Returns 1 when everything the request held is
 * freed now (the owner may go), 0 when evdns still has to answer the
 * cancel (from the loop): gone() says when the owner may go. */
int conn_resolve_cancel(struct conn_resolve *r);

#endif
