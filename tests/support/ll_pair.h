/* Two ends of raw sctp_ll associations (the usrsctp glue's port, no DDP)
 * for the port's integration tests: what an end saw, the event callback
 * that reads every message and checks it (by default its pattern: octet i
 * is the first octet + i; always a whole message per read), the accept
 * callback that adopts an association for a side, and a loop runner with a
 * deadline. */
#ifndef DDP_TEST_LL_PAIR_H
#define DDP_TEST_LL_PAIR_H

#include <stdint.h>

#include "ddp_test.h"

struct event_base;

/* A test's own check of one message a side read (n octets at msg, ri what
 * the read returned), for messages that are not the default pattern:
 * returns how many octets or properties were off (they add to bad). */
typedef unsigned long (*ll_msg_check)(const uint8_t *msg, long n, const sctp_ll_rinfo *ri);

struct ll_side {
	sctp_ll_assoc *a;
	int up, down, dry;
	int down_status;          /* the status SCTP_LL_EV_DOWN came with */
	unsigned long got, bad;   /* messages read; octets off the check or cut */
	unsigned long next_known; /* reads that knew the next message (next_valid) */
	ll_msg_check check;       /* NULL: the default pattern */
	uint8_t buf[70000];
};

/* The callbacks of a side (user: its struct ll_side). */
extern const sctp_ll_assoc_cb ll_side_cbs;

/* For sctp_ll_listen (user: the accepting side's struct ll_side): the
 * association becomes that side's, with ll_side_cbs. */
void ll_side_accept(sctp_ll_ep *ep, sctp_ll_assoc *a, void *user);

/* Run b until *flag is set or *cnt reaches want (either may be NULL), at
 * most secs seconds. */
void ll_run_until(struct event_base *b, const int *flag, const unsigned long *cnt,
		  unsigned long want, int secs);

#endif
