/*
 * Internals shared by the two usrsctp glue files: sctp_usrsctp.c
 * (endpoints, associations, notifications, timers) and sctp_usrsctp_io.c
 * (socket options, message send and receive). Not installed; usrsctp's
 * own types stay in those two files (struct socket is opaque here).
 */
#ifndef DDP_SCTP_USRSCTP_INT_H
#define DDP_SCTP_USRSCTP_INT_H

#include <stdint.h>

#include <event2/event.h>

#include "sctp/sctp_ll.h"

struct socket;
struct sctp_udp_peer;

#define NBUF_LEN 4096	   /* notification buffer */

enum { A_CONNECTING, A_UP_PENDING, A_UP, A_DOWN };

struct sctp_ll_assoc {
	struct sctp_ll_assoc *next, *prev;
	sctp_ll_ep *ep;
	struct sctp_udp_peer *peer;
	struct socket *so;
	struct event *work;
	sctp_ll_assoc_cb cb;
	void *user;
	int state;
	int adapt_seen;
	int graceful; /* a SHUTDOWN is under way or done: close without ABORT */
	uint32_t adapt_val;
	int want_write;
	int pend_dry, pend_down;
	int down_status;
	int in_cb, dead;
	int mid_msg; /* a data message is partly read */
	uint16_t nstreams;
	uint32_t max_msg;    /* now (follows the path MTU down) */
	uint32_t max_msg_up; /* at UP: the most sctp_ll_sendv accepts */
	char peer_abort[128]; /* the peer's ABORT reason (User-Initiated
			       * Abort cause), "" if none */
	uint8_t nbuf[NBUF_LEN];
};

struct sctp_ll_ep {
	struct event_base *base;
	sctp_ll_config cfg;
	struct sctp_udp *udp;
	int port;
	struct event *timer, *accept_ev;
	int linger;	/* timer ticks left after the last association */
	void (*tick)(void *user); /* sctp_ll_set_tick */
	void *tick_user;
	unsigned tick_n;
	struct socket *lsock;
	sctp_ll_accept_cb acb;
	void *auser;
	struct sctp_ll_assoc *assocs;
};

/* sctp_usrsctp.c */
/* The association is gone (status: DDP_ERR_*); reported from the loop. */
void sctp_usrsctp_go_down(struct sctp_ll_assoc *a, int status);
/* Read the rest of a notification whose first n octets are in first. */
void sctp_usrsctp_read_notification(struct sctp_ll_assoc *a,
				    const uint8_t *first, size_t n, int eor);

/* sctp_usrsctp_io.c */
/* Socket options shared by connecting and listening sockets; payload:
 * the largest UDP payload (sctp_udp_peer_max_payload) for the path MTU. */
int sctp_usrsctp_setup_socket(sctp_ll_ep *ep, struct socket *so,
			      uint32_t payload);
/* ABORT with a User-Initiated Abort cause carrying reason (text). */
int sctp_usrsctp_abort_reason(struct socket *so, const char *reason);
/* The Upper Layer Abort Reason of the peer's ABORT chunk in info (a
 * COMM_LOST notification's sac_info, n octets) into out (NUL terminated,
 * control characters replaced by '?'); "" when there is none. */
void sctp_usrsctp_peer_abort(const uint8_t *info, size_t n, char *out,
			     size_t outn);
/* Path MTU of so's association (or of associations it will make). */
int sctp_usrsctp_set_mtu(struct socket *so, uint32_t payload);

#endif
