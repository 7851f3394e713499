/*
 * Internals shared by the two usrsctp glue files: sctp_usrsctp.c (upper:
 * endpoints, associations, notifications, upcalls) calls
 * sctp_usrsctp_io.c (lower: the process-wide stack and its lock, timers,
 * socket options, message send and receive), never the reverse. Not
 * installed; usrsctp's own types stay in those two files (struct socket
 * is opaque here).
 */
#ifndef DDP_SCTP_USRSCTP_INT_H
#define DDP_SCTP_USRSCTP_INT_H

#include "life.h"
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "sctp/usrsctp/sctp_ll.h"
#include "sctp/usrsctp/sctp_rcvbuf.h"

struct socket;
struct sctp_udp_peer;

#define NBUF_LEN 4096 /* notification buffer */

enum { A_CONNECTING, A_UP_PENDING, A_UP, A_DOWN };

/* One message read ahead into an association's receive staging area
 * (sctp_ll_rx.c): buf[off..off+len). eor 0: only its start (the rest is
 * still in usrsctp); note: a notification, not data. */
struct sctp_ll_rxmsg {
	uint32_t off, len;
	uint32_t ppid;
	uint16_t sid;
	uint8_t unordered, eor, note;
};
#define SCTP_LL_RXQ_MSGS 32          /* messages read in one batch */
#define SCTP_LL_RXQ_CAP  (32u << 10) /* staging area of an association */

/* The staging area: whole small messages, read SCTP_LL_RXQ_MSGS at most
 * per hold of the usrsctp lock, handed out by sctp_ll_recv. */
struct sctp_ll_rxq {
	uint8_t *buf;   /* allocated at first use: cap octets */
	size_t cap;     /* SCTP_LL_RXQ_CAP, or rx_whole_max + 1 if larger */
	uint32_t calls; /* usrsctp_recvv calls of the last batch, not
	                 * yet reported (sctp_ll_rinfo.calls) */
	struct sctp_ll_rxmsg m[SCTP_LL_RXQ_MSGS];
	unsigned n, i;       /* messages held; the one being handed out */
	uint32_t pos;        /* octets of m[i] handed out */
	sctp_ll_rinfo after; /* SCTP_RECVNXTINFO of the batch's last read */
	int next_valid;      /* the last read (any path) knew the next length */
	uint32_t next_len;
	int used; /* a batch was read since the last quiet check */
};

/* The staging area goes back to malloc when its association has read no
 * batch for a whole check period (sctp_ll_timer.c, every second) and holds
 * nothing: an association that went quiet keeps none of our receive
 * memory, like an MPA connection's ring. */
uint8_t *sctp_ll_rxq_map(size_t len); /* NULL: no memory (counted when not) */
void sctp_ll_rxq_quiet(struct sctp_ll_rxq *q);
void sctp_ll_rxq_fini(struct sctp_ll_rxq *q);

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
	int pend_dry, pend_down, pend_later;
	int down_status;
	struct ddp_life life;   /* work_cb's frame, freed (src/life.h) */
	int mid_msg;            /* a data message is partly read */
	struct sctp_ll_rxq rxq; /* sctp_ll_rx.c */
	/* under the usrsctp lock: an upcall from another thread queued this
	 * association on ep->wake (sctp_usrsctp.c) */
	struct sctp_ll_assoc *wake_next;
	int on_wake;
	uint16_t nstreams;
	uint32_t max_msg;    /* now (follows the path MTU down) */
	uint32_t max_msg_up; /* at UP: the most sctp_ll_sendv accepts */
	/* receive-buffer autotuning (sctp_usrsctp_rcvbuf.c) */
	uint64_t rx_octets;            /* data octets read from usrsctp */
	uint64_t tune_mark;            /* rx_octets at the last tick */
	uint64_t tune_t0;              /* the last tick, ms (monotonic) */
	uint64_t tune_refresh;         /* when tune_rtt was last updated, ms */
	uint32_t tune_rtt;             /* least smoothed round trip seen, ms */
	uint32_t rcvbuf;               /* SO_RCVBUF now, octets */
	struct sctp_rcvbuf_meter tune; /* reads of the last ticks */
	char peer_abort[128];          /* the peer's ABORT reason (User-Initiated
	                                * Abort cause), "" if none */
	uint8_t nbuf[NBUF_LEN];
};

struct sctp_ll_ep {
	struct event_base *base;
	sctp_ll_config cfg;
	struct sctp_udp *udp;
	int port;
	struct event *timer, *accept_ev;
	int linger;               /* timer ticks left after the last association */
	void (*tick)(void *user); /* sctp_ll_set_tick */
	void *tick_user;
	unsigned tick_n;
	unsigned quiet_n; /* timer ticks since the last quiet check */
	unsigned dead_n;  /* timer ticks since the last dead-peer check */
	struct socket *lsock;
	sctp_ll_accept_cb acb;
	void *auser;
	struct sctp_ll_assoc *assocs;
	/* the doorbell: other threads' usrsctp calls (timers) reach this
	 * endpoint's thread through an eventfd; the fields below under the
	 * usrsctp lock */
	int bell_fd;
	struct event *bell_ev;
	int bell_rung, bell_flush, bell_accept;
	struct sctp_ll_assoc *wake;
	/* send without the gather (sctp_usrsctp_io.c): staging buffer and
	 * octets copied into it; owner thread */
	uint8_t *stage;
	size_t stage_cap;
	uint64_t tx_copied;
	uint64_t conn_addrs; /* peers whose address usrsctp knows */
	int rcv_auto;        /* cfg.rcvbuf was 0: autotuned from its floor */
	/* the dead-peer check (dead_peer_check): its last run and
	 * when its watch began, ms (monotonic); the timer runs it through
	 * dead_check, the association code's own, which the timer does not
	 * call by name (the association code arms the timer) */
	uint64_t dead_tick_ms, dead_watch_ms;
	void (*dead_check)(sctp_ll_ep *ep);
	int stock; /* made by sctp_ll_ep_new_stock (ddp_test.h):
	            * usrsctp's own socket options, not libddp's */
};

/* sctp_usrsctp_io.c: the process-wide stack */
/* usrsctp has one state per process and, started without threads, no
 * locking: every call into it holds this lock. caller: the event_base of
 * the calling thread (NULL: none); usrsctp's callbacks, which run inside
 * such calls, read it with sctp_usrsctp_caller(). Not recursive: never
 * taken inside a usrsctp callback. */
void sctp_usrsctp_lock(struct event_base *caller);
void sctp_usrsctp_unlock(void);
struct event_base *sctp_usrsctp_caller(void);
/* usrsctp's output callback, as usrsctp_init_nothreads takes it. */
typedef int (*sctp_usrsctp_output_fn)(void *addr, void *buf, size_t len, uint8_t tos,
                                      uint8_t set_df);
/* One more / one less user of the stack: the first starts usrsctp with
 * out as its output (and, once per process, self-tests the gather send),
 * the last stops it. Take the lock themselves. */
void sctp_usrsctp_stack_get(sctp_usrsctp_output_fn out);
void sctp_usrsctp_stack_put(void);
/* Advance usrsctp's clock and run its due timers (every association's). */
void sctp_usrsctp_timers(struct event_base *caller);

/* sctp_usrsctp_io.c: sockets (each takes the lock itself, with b as the
 * caller) */
/* Socket options shared by connecting and listening sockets; payload:
 * the largest UDP payload (sctp_udp_peer_max_payload) for the path MTU. */
/* usrsctp's module number for cfg->cc (SCTP_CC_*). */
int sctp_usrsctp_cc_module(unsigned cc);
int sctp_usrsctp_setup_socket(sctp_ll_ep *ep, struct socket *so, uint32_t payload);
/* ABORT with a User-Initiated Abort cause carrying reason (text). */
int sctp_usrsctp_abort_reason(struct event_base *b, struct socket *so, const char *reason);
/* The Upper Layer Abort Reason of the peer's ABORT chunk in info (a
 * COMM_LOST notification's sac_info, n octets) into out (NUL terminated,
 * control characters replaced by '?'); "" when there is none. */
void sctp_usrsctp_peer_abort(const uint8_t *info, size_t n, char *out, size_t outn);
/* Path MTU of so's association (or of associations it will make). */
int sctp_usrsctp_set_mtu(struct event_base *b, struct socket *so, uint32_t payload);
/* One usrsctp_recvv on a's socket: what it returned, *n octets in buf,
 * *eor its MSG_EOR; for SCTP_RECV_DATA ri is filled (the caller reads the
 * rest of a notification and acts on failures). */
enum { SCTP_RECV_DATA, SCTP_RECV_NOTIFICATION, SCTP_RECV_AGAIN, SCTP_RECV_FAILED };
int sctp_usrsctp_recv_once(struct sctp_ll_assoc *a, void *buf, size_t len, sctp_ll_rinfo *ri,
                           size_t *n, int *eor);
/* In one hold of the lock: the next message into buf (at most first
 * octets), then each following one that SCTP_RECVNXTINFO shows complete,
 * data, at most max_len octets and fitting in the rest of buf (cap
 * octets), up to nmax messages: one usrsctp_recvv each, described in
 * m[0..*got). *next: SCTP_RECVNXTINFO of the last data read. Returns
 * SCTP_RECV_DATA (*got >= 1), or what the first read returned: AGAIN,
 * FAILED, NOTIFICATION (its first m[0].len octets at buf, m[0].eor). */
int sctp_usrsctp_recv_batch(struct sctp_ll_assoc *a, uint8_t *buf, size_t cap, size_t first,
                            size_t max_len, struct sctp_ll_rxmsg *m, unsigned nmax, unsigned *got,
                            sctp_ll_rinfo *next);

/* sctp_usrsctp.c, for sctp_ll_rx.c: the association is going down with
 * status (reported from its work event); read the rest of a notification
 * whose first n octets are at first (eor: it ended there) and act on it. */
void sctp_usrsctp_down(struct sctp_ll_assoc *a, int status);
void sctp_usrsctp_notification(struct sctp_ll_assoc *a, const uint8_t *first, size_t n, int eor);

/* sctp_usrsctp.c, for the endpoint (sctp_usrsctp_ep.c): usrsctp's packet
 * output callback (any thread, under the lock); the listener's accept
 * event; the dead-peer check of ep's timer; close a's socket (abortive:
 * an ABORT); re-read a's fragmentation point after a path MTU change;
 * free a (its socket closed first). */
int sctp_usrsctp_conn_output(void *addr, void *buf, size_t len, uint8_t tos, uint8_t set_df);
void sctp_usrsctp_accept_cb(evutil_socket_t fd, short what, void *arg);
void sctp_usrsctp_dead_peer_check(sctp_ll_ep *ep);
void sctp_usrsctp_close_socket(struct sctp_ll_assoc *a, int abortive);
void sctp_usrsctp_learn_limits(struct sctp_ll_assoc *a);
void sctp_usrsctp_assoc_destroy(struct sctp_ll_assoc *a);

/* sctp_handover.c: under the lock, wake ep's thread (once until it
 * answers); a's thread runs its work soon; a is going away; the owner's
 * loop callback for the doorbell eventfd. */
void sctp_handover_ring(sctp_ll_ep *ep);
void sctp_handover_wake(struct sctp_ll_assoc *a);
void sctp_handover_unwake(struct sctp_ll_assoc *a);
void sctp_handover_cb(evutil_socket_t fd, short what, void *arg);

/* sctp_usrsctp_rcvbuf.c: receive-buffer autotuning (when ep->rcv_auto):
 * an association's start at UP; one step of every association of ep
 * from the endpoint's timer. */
void sctp_usrsctp_rcvbuf_up(struct sctp_ll_assoc *a);
void sctp_usrsctp_rcvbuf_tick(sctp_ll_ep *ep);

/* sctp_ll_timer.c: keep ep's timer running; its callback. */
void sctp_ll_timer_arm(sctp_ll_ep *ep);
void sctp_ll_timer_cb(evutil_socket_t fd, short what, void *arg);

#endif
