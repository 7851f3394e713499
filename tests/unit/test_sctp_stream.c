/* Unit tests: DDP Stream Session state machine (RFC 5043 §6, §10,
 * §5.2.3; RFC 6581 §7). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <ddp/ddp.h>
#include "sctp/sctp_stream.h"

static struct sctp_ctl_msg ctl(uint16_t code, uint16_t ssn)
{
	struct sctp_ctl_msg m;
	memset(&m, 0, sizeof(m));
	m.code = code;
	m.ssn = ssn;
	return m;
}

/* Active side up to OPEN. */
static void open_active(struct sctp_stream *a)
{
	struct sctp_act act;
	struct sctp_ctl_msg m = ctl(SCTP_CTL_ACCEPT, 0);
	uint16_t ssn = 99;
	sctp_stream_init(a);
	assert_int_equal(sctp_stream_tx_initiate(a, 0, &ssn), 0);
	assert_int_equal(ssn, 0);
	sctp_stream_rx_ctl(a, &m, 1, &act);
	assert_true(act.flags & SCTP_ACT_ACCEPTED);
	assert_true(act.flags & SCTP_ACT_SKIP);
	assert_int_equal(a->state, SCTP_SST_OPEN);
}

/* Passive side up to OPEN. */
static void open_passive(struct sctp_stream *p)
{
	struct sctp_act act;
	struct sctp_ctl_msg m = ctl(SCTP_CTL_INITIATE, 0);
	uint16_t ssn = 99;
	sctp_stream_init(p);
	sctp_stream_rx_ctl(p, &m, 1, &act);
	assert_int_equal(act.flags, SCTP_ACT_RESET | SCTP_ACT_SKIP |
					    SCTP_ACT_ULP_INITIATE);
	assert_int_equal(p->state, SCTP_SST_INIT_RCVD);
	assert_int_equal(sctp_stream_tx_accept(p, &ssn), 0);
	assert_int_equal(ssn, 0);
	assert_int_equal(p->state, SCTP_SST_OPEN);
}

/* RFC 5043 §6 rule 2: active side sends no data before the Accept. */
static void test_stream_active_waits_for_accept_before_data(void **st)
{
	struct sctp_stream a;
	struct sctp_act act;
	struct sctp_ctl_msg m = ctl(SCTP_CTL_ACCEPT, 0);
	uint16_t ssn;
	(void)st;
	sctp_stream_init(&a);
	assert_int_equal(sctp_stream_tx_data(&a, &ssn), DDP_ERR_STATE);
	assert_int_equal(sctp_stream_tx_initiate(&a, 0, &ssn), 0);
	assert_int_equal(sctp_stream_tx_data(&a, &ssn), DDP_ERR_AGAIN);
	sctp_stream_rx_ctl(&a, &m, 1, &act);
	assert_true(act.flags & SCTP_ACT_ACCEPTED);
	/* RFC 5043 §5.2.1: DDP-SSN counts control and data chunks */
	assert_int_equal(sctp_stream_tx_data(&a, &ssn), 0);
	assert_int_equal(ssn, 1);
	assert_int_equal(sctp_stream_tx_data(&a, &ssn), 0);
	assert_int_equal(ssn, 2);
}

/* RFC 6581 §4.4.1: the passive side's data may arrive before its Accept. */
static void test_stream_active_takes_data_that_overtook_accept(void **st)
{
	struct sctp_stream a;
	struct sctp_act act;
	struct sctp_ctl_msg m = ctl(SCTP_CTL_ACCEPT, 0);
	uint16_t ssn;
	(void)st;
	sctp_stream_init(&a);
	assert_int_equal(sctp_stream_tx_initiate(&a, 0, &ssn), 0);
	sctp_stream_rx_data(&a, 1, &act);
	assert_int_equal(act.flags, 0);
	sctp_stream_rx_data(&a, 2, &act);
	assert_int_equal(act.flags, 0);
	sctp_stream_rx_ctl(&a, &m, 1, &act);
	assert_true(act.flags & SCTP_ACT_ACCEPTED);
	assert_int_equal(a.rx_base, 3);
}

/* RFC 5043 §6 rule 2 (receiver view): data before the Initiate or from the
 * active side before our answer is a violation. */
static void test_stream_passive_rejects_data_before_accept(void **st)
{
	struct sctp_stream p;
	struct sctp_act act;
	struct sctp_ctl_msg m = ctl(SCTP_CTL_INITIATE, 0);
	(void)st;
	sctp_stream_init(&p);
	sctp_stream_rx_data(&p, 1, &act);
	assert_int_equal(act.flags, SCTP_ACT_DROP); /* idle: no session */
	sctp_stream_rx_ctl(&p, &m, 1, &act);
	sctp_stream_rx_data(&p, 1, &act);
	assert_true(act.flags & SCTP_ACT_VIOLATION);
	assert_int_equal(act.code, DDP_ECODE_LLP_BAD_SSN);
}

/* RFC 5043 §10: DDP-SSN outside the window or duplicated is invalid. */
static void test_stream_rejects_ssn_outside_window_and_duplicates(void **st)
{
	struct sctp_stream p;
	struct sctp_act act;
	(void)st;
	open_passive(&p);
	sctp_stream_rx_data(&p, 1, &act);
	assert_int_equal(act.flags, 0);
	sctp_stream_rx_data(&p, (uint16_t)(1 + SCTP_RX_WIN), &act);
	assert_int_equal(act.flags, 0); /* just inside: base is 2 */
	sctp_stream_rx_data(&p, (uint16_t)(2 + SCTP_RX_WIN), &act);
	assert_true(act.flags & SCTP_ACT_VIOLATION);
	assert_int_equal(act.code, DDP_ECODE_LLP_BAD_SSN);
	/* a violation terminates the session (RFC 5043 §6.1): after the
	 * ULP's last message (RFC 5043 §11.2), i.e. on close */
	assert_false(act.flags & SCTP_ACT_SEND_TERM);
	assert_int_equal(p.state, SCTP_SST_CLOSING);
	uint16_t ssn;
	unsigned f;
	assert_int_equal(sctp_stream_tx_data(&p, &ssn), 0);
	assert_int_equal(ssn, 1);
	sctp_stream_tx_confirmed(&p);
	assert_int_equal(sctp_stream_tx_terminate(&p, &ssn, &f), 0);
	assert_int_equal(ssn, 2);
	/* before the ULP saw the Initiate: Terminate at once */
	struct sctp_stream q;
	struct sctp_ctl_msg i = ctl(SCTP_CTL_INITIATE, 0);
	sctp_stream_init(&q);
	sctp_stream_rx_ctl(&q, &i, 1, &act);
	sctp_stream_rx_data(&q, 1, &act);
	assert_true(act.flags & SCTP_ACT_SEND_TERM);
	assert_int_equal(act.term_ssn, 0);
	open_passive(&p);
	sctp_stream_rx_data(&p, 5, &act);
	assert_int_equal(act.flags, 0);
	sctp_stream_rx_data(&p, 5, &act);
	assert_true(act.flags & SCTP_ACT_VIOLATION);
}

/* RFC 5043 §6: a peer Terminate counts in DDP-SSN order, so it takes
 * effect only after every earlier chunk arrived. */
static void test_stream_peer_terminate_waits_for_earlier_chunks(void **st)
{
	struct sctp_stream p;
	struct sctp_act act;
	struct sctp_ctl_msg t = ctl(SCTP_CTL_TERMINATE, 4);
	(void)st;
	open_passive(&p);
	sctp_stream_rx_data(&p, 1, &act);
	sctp_stream_rx_ctl(&p, &t, 1, &act);
	assert_int_equal(act.flags, SCTP_ACT_SKIP);
	sctp_stream_rx_data(&p, 3, &act);
	assert_int_equal(act.flags, 0);
	sctp_stream_rx_data(&p, 2, &act);
	assert_int_equal(act.flags, SCTP_ACT_PEER_CLOSED);
	/* RFC 5041 §6: nothing after the Terminate */
	sctp_stream_rx_data(&p, 5, &act);
	assert_true(act.flags & SCTP_ACT_VIOLATION);
	assert_int_equal(act.code, DDP_ECODE_LLP_AFTER_CLOSE);
}

static void test_stream_both_terminates_close_session(void **st)
{
	struct sctp_stream a;
	struct sctp_act act;
	struct sctp_ctl_msg t = ctl(SCTP_CTL_TERMINATE, 1);
	uint16_t ssn;
	unsigned f;
	(void)st;
	open_active(&a);
	assert_int_equal(sctp_stream_tx_terminate(&a, &ssn, &f), 0);
	assert_int_equal(ssn, 1);
	assert_int_equal(f, 0);
	assert_int_equal(a.state, SCTP_SST_CLOSING);
	assert_int_equal(sctp_stream_tx_data(&a, &ssn), DDP_ERR_CLOSED);
	assert_int_equal(sctp_stream_tx_terminate(&a, &ssn, &f),
			 DDP_ERR_CLOSED);
	sctp_stream_rx_ctl(&a, &t, 1, &act);
	assert_int_equal(act.flags, SCTP_ACT_SKIP | SCTP_ACT_PEER_CLOSED |
					    SCTP_ACT_CLOSED);
	assert_int_equal(a.state, SCTP_SST_CLOSED);
}

/* RFC 5043 §6 rule 1: the passive side's Terminate may not overtake its
 * Accept: deferred until the Accept is known to have arrived. */
static void test_stream_terminate_waits_until_accept_confirmed(void **st)
{
	struct sctp_stream p;
	struct sctp_act act;
	uint16_t ssn;
	unsigned f;
	(void)st;
	open_passive(&p);
	assert_int_equal(sctp_stream_tx_terminate(&p, &ssn, &f), DDP_ERR_AGAIN);
	sctp_stream_rx_data(&p, 1, &act); /* active side got the Accept */
	assert_true(act.flags & SCTP_ACT_TERM_READY);
	assert_int_equal(sctp_stream_tx_terminate(&p, &ssn, &f), 0);
	assert_int_equal(ssn, 1);
	open_passive(&p);
	assert_int_equal(sctp_stream_tx_terminate(&p, &ssn, &f), DDP_ERR_AGAIN);
	assert_int_equal(sctp_stream_tx_confirmed(&p), SCTP_ACT_TERM_READY);
	assert_int_equal(sctp_stream_tx_terminate(&p, &ssn, &f), 0);
}

/* RFC 5043 §5.2.3: over the Initiate cap -> Terminate, not Reject. */
static void test_stream_initiate_over_cap_answered_with_terminate(void **st)
{
	struct sctp_stream p;
	struct sctp_act act;
	struct sctp_ctl_msg m = ctl(SCTP_CTL_INITIATE, 0);
	uint16_t ssn;
	(void)st;
	sctp_stream_init(&p);
	sctp_stream_rx_ctl(&p, &m, 0, &act);
	assert_true(act.flags & SCTP_ACT_SEND_TERM);
	assert_false(act.flags & SCTP_ACT_ULP_INITIATE);
	assert_int_equal(act.term_ssn, 0);
	assert_int_equal(p.state, SCTP_SST_CLOSED);
	/* and nothing lets us send Reject or Accept for it */
	assert_int_equal(sctp_stream_tx_reject(&p, &ssn), DDP_ERR_STATE);
	assert_int_equal(sctp_stream_tx_accept(&p, &ssn), DDP_ERR_STATE);
}

/* RFC 5043 §6.3/§6.4: Reject by the ULP, Terminate otherwise. */
static void test_stream_reject_and_terminate_end_initiate(void **st)
{
	struct sctp_stream a, p;
	struct sctp_act act;
	struct sctp_ctl_msg r = ctl(SCTP_CTL_ENH_REJECT, 0);
	struct sctp_ctl_msg t = ctl(SCTP_CTL_TERMINATE, 0);
	uint16_t ssn;
	(void)st;
	sctp_stream_init(&a);
	assert_int_equal(sctp_stream_tx_initiate(&a, 1, &ssn), 0);
	sctp_stream_rx_ctl(&a, &r, 1, &act);
	assert_int_equal(act.flags, SCTP_ACT_SKIP | SCTP_ACT_REJECTED);
	assert_int_equal(a.state, SCTP_SST_CLOSED);
	sctp_stream_init(&a);
	assert_int_equal(sctp_stream_tx_initiate(&a, 0, &ssn), 0);
	sctp_stream_rx_ctl(&a, &t, 1, &act);
	assert_int_equal(act.flags, SCTP_ACT_SKIP | SCTP_ACT_REJECTED);
	open_passive(&p);
	assert_int_equal(sctp_stream_tx_reject(&p, &ssn), DDP_ERR_STATE);
}

/* RFC 5043 §6 rule 3 + §6.1: reuse after the old session is over and
 * acknowledged; DDP-SSN restarts at 0. */
static void test_stream_reinitiate_after_close_restarts_ssn(void **st)
{
	struct sctp_stream a, p;
	struct sctp_act act;
	struct sctp_ctl_msg t = ctl(SCTP_CTL_TERMINATE, 3);
	struct sctp_ctl_msg i = ctl(SCTP_CTL_INITIATE, 0);
	uint16_t ssn;
	unsigned f;
	(void)st;
	open_active(&a);
	assert_int_equal(sctp_stream_tx_data(&a, &ssn), 0);
	assert_int_equal(sctp_stream_tx_terminate(&a, &ssn, &f), 0);
	assert_int_equal(ssn, 2);
	sctp_stream_rx_data(&a, 1, &act);
	sctp_stream_rx_data(&a, 2, &act);
	sctp_stream_rx_ctl(&a, &t, 1, &act);
	assert_true(act.flags & SCTP_ACT_CLOSED);
	assert_int_equal(sctp_stream_tx_initiate(&a, 0, &ssn), DDP_ERR_BUSY);
	sctp_stream_tx_confirmed(&a);
	assert_int_equal(sctp_stream_tx_initiate(&a, 0, &ssn), 0);
	assert_int_equal(ssn, 0);
	assert_int_equal(a.rx_base, 0);
	/* passive: a new Initiate on a closed stream is a new session */
	open_passive(&p);
	sctp_stream_abort(&p, &act);
	assert_true(act.flags & SCTP_ACT_CLOSED);
	sctp_stream_rx_data(&p, 7, &act); /* stale chunk of the old session */
	assert_int_equal(act.flags, SCTP_ACT_DROP);
	sctp_stream_rx_ctl(&p, &i, 1, &act);
	assert_true(act.flags & SCTP_ACT_RESET);
	assert_true(act.flags & SCTP_ACT_ULP_INITIATE);
	assert_int_equal(p.state, SCTP_SST_INIT_RCVD);
}

static void test_stream_initiate_inside_session_is_violation(void **st)
{
	struct sctp_stream p;
	struct sctp_act act;
	struct sctp_ctl_msg i = ctl(SCTP_CTL_INITIATE, 0);
	struct sctp_ctl_msg acc = ctl(SCTP_CTL_ACCEPT, 2);
	(void)st;
	open_passive(&p);
	sctp_stream_rx_ctl(&p, &i, 1, &act);
	assert_true(act.flags & SCTP_ACT_VIOLATION);
	open_passive(&p);
	sctp_stream_rx_ctl(&p, &acc, 1, &act);
	assert_true(act.flags & SCTP_ACT_VIOLATION);
	assert_int_equal(p.state, SCTP_SST_CLOSING);
	/* after the violation the session drops everything */
	sctp_stream_rx_data(&p, 1, &act);
	assert_int_equal(act.flags, SCTP_ACT_DROP);
}

static void test_stream_ssn_wraps_modulo_2_16(void **st)
{
	struct sctp_stream p;
	struct sctp_act act;
	(void)st;
	open_passive(&p);
	for (unsigned i = 1; i < 70000; i++) {
		sctp_stream_rx_data(&p, (uint16_t)i, &act);
		assert_int_equal(act.flags, 0);
	}
	assert_int_equal(p.rx_base, (uint16_t)70000);
	assert_string_equal(sctp_sst_name(p.state), "open");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_active_waits_for_accept_before_data),
		cmocka_unit_test(test_stream_active_takes_data_that_overtook_accept),
		cmocka_unit_test(test_stream_passive_rejects_data_before_accept),
		cmocka_unit_test(test_stream_rejects_ssn_outside_window_and_duplicates),
		cmocka_unit_test(test_stream_peer_terminate_waits_for_earlier_chunks),
		cmocka_unit_test(test_stream_both_terminates_close_session),
		cmocka_unit_test(test_stream_terminate_waits_until_accept_confirmed),
		cmocka_unit_test(test_stream_initiate_over_cap_answered_with_terminate),
		cmocka_unit_test(test_stream_reject_and_terminate_end_initiate),
		cmocka_unit_test(test_stream_reinitiate_after_close_restarts_ssn),
		cmocka_unit_test(test_stream_initiate_inside_session_is_violation),
		cmocka_unit_test(test_stream_ssn_wraps_modulo_2_16),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
