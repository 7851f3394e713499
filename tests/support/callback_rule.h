/*
 * The callback rule of ddp.h ("Callbacks") for the tests that prove it
 * (test_callback_rule, test_callback_rule_llp): the table, encoded once,
 * and the marker a public call sets while it runs. Every callback of
 * those tests starts with saw(), which counts a callback inside a call
 * the table does not allow it for. Header-only; include after cmocka.h.
 */
#ifndef DDP_TEST_CALLBACK_RULE_H
#define DDP_TEST_CALLBACK_RULE_H

#include <string.h>

enum llp { MPA, SCTP };
static const char *const llp_name[] = {"MPA", "SCTP"};

/* ------------------------------------------------------------ the rule */

enum cb {
	CB_DELIVER,
	CB_SEND_DONE,
	CB_ERROR,
	CB_STREAM_EVENT,
	CB_WRITABLE,
	CB_UP,
	CB_STREAM_OPEN,
	CB_DOWN,
	CB_RELEASED,
	CB_COMPLETE,
	CB_TERMINATE,
	CB_EVENT,       /* MPA connection event, SCTP assoc */
	CB_ACCEPT,      /* MPA Request to accept */
	CB_SESSION_CTL, /* SCTP session control */
	CB_N
};
static const char *const cb_name[CB_N] = {
    "deliver", "send_done", "error",    "stream_event", "writable", "up",     "stream_open",
    "down",    "released",  "complete", "terminate",    "event",    "accept", "session_ctl",
};
#define B(c) (1u << (c))
/* a stream's flush; an RDMAP queue pair on it reports it as its own */
#define FLUSH                                                                                      \
	(B(CB_DELIVER) | B(CB_SEND_DONE) | B(CB_STREAM_EVENT) | B(CB_COMPLETE) | B(CB_TERMINATE))

/* ddp.h "Callbacks", the table: the calls that may run a callback before
 * they return, and which; every other public call runs none, on either
 * LLP. */
static const struct rule {
	const char *call;
	unsigned may;
} rule[] = {
    {"ddp_session_close(s, 1)", FLUSH},
    {"ddp_stream_abort", FLUSH},
    {"ddp_stag_invalidate", B(CB_RELEASED)},
    {"ddp_stag_invalidate_remote", B(CB_RELEASED)},
    {"ddp_stag_unhold", B(CB_RELEASED)},
    {"ddp_rdmap_qp_free", B(CB_COMPLETE) | B(CB_TERMINATE) | B(CB_RELEASED)},
    {"ddp_mpa_conn_free", B(CB_DELIVER) | B(CB_SEND_DONE) | B(CB_RELEASED)},
    {"ddp_sctp_ep_free", B(CB_DELIVER) | B(CB_SEND_DONE) | B(CB_RELEASED)},
    {"ddp_session_free", B(CB_DELIVER) | B(CB_SEND_DONE) | B(CB_RELEASED)},
    {"ddp_ctx_free", B(CB_RELEASED)},
};

static const char *inside; /* the public call running now, NULL: the loop */
static enum llp cur;
static int violations, allowed_hits[CB_N];

static unsigned may_run(const char *call)
{
	for (size_t i = 0; i < sizeof(rule) / sizeof(rule[0]); i++)
		if (!strcmp(rule[i].call, call))
			return rule[i].may;
	return 0;
}

/* Every callback starts here. */
static void saw(enum cb c)
{
	if (!inside)
		return;
	if (may_run(inside) & B(c)) {
		allowed_hits[c]++;
		return;
	}
	violations++;
	print_message("%s: %s ran inside %s, which the rule does not allow\n", llp_name[cur],
	              cb_name[c], inside);
}

/* Run a public call with the marker set (nested calls restore it). */
#define CALL(name, expr)                                                                           \
	__extension__({                                                                            \
		const char *saved_ = inside;                                                       \
		inside = (name);                                                                   \
		__typeof__(expr) r_ = (expr);                                                      \
		inside = saved_;                                                                   \
		r_;                                                                                \
	})
#define VCALL(name, stmt)                                                                          \
	do {                                                                                       \
		const char *saved_ = inside;                                                       \
		inside = (name);                                                                   \
		stmt;                                                                              \
		inside = saved_;                                                                   \
	} while (0)

static void no_violation(const char *phase)
{
	if (violations)
		print_message("%s, %s: %d callback(s) inside calls the rule forbids\n",
		              llp_name[cur], phase, violations);
	assert_int_equal(violations, 0);
}

#endif
