/* Errors say what happened: an association refused
 * for its Adaptation Layer Indication (RFC 5043 §11.1) is ABORTed with a
 * User-Initiated Abort cause whose Upper Layer Abort Reason says why
 * (RFC 4960 §3.3.10.12), and the refused side's log shows that reason,
 * not just a lost association. The refusing peer is a plain SCTP endpoint
 * (the layer under DDP) that requires a different indication; the refused
 * side is a DDP endpoint (ddp_sctp) with a log hook. Real usrsctp over UDP
 * on 127.0.0.1. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/sctp.h>
#include "net_helpers.h"
#include "sctp/usrsctp/sctp_ll.h"

static char logbuf[2048];
static int srv_down, srv_status, cli_down, cli_status;

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	size_t n = strlen(logbuf);
	snprintf(logbuf + n, sizeof(logbuf) - n, "%s\n", msg);
}

static void srv_event(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	if (ev == SCTP_LL_EV_DOWN) {
		srv_down = 1;
		srv_status = status;
	}
}

static const sctp_ll_assoc_cb srv_cbs = {srv_event};

static void srv_accept(sctp_ll_ep *ep, sctp_ll_assoc *a, void *user)
{
	sctp_ll_assoc_set_cb(a, &srv_cbs, NULL);
}

static void cli_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	if (status < 0) {
		cli_down = 1;
		cli_status = status;
	}
}

static void cli_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                    const void *pd, size_t pd_len, void *user)
{
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
}

static void test_sctp_refused_peer_logs_the_abort_reason(void **st)
{
	struct event_base *base = event_base_new();
	ddp_ctx_config cc = {.log = on_log};
	ddp_ctx *ctx;
	assert_int_equal(ddp_ctx_new(&cc, &ctx), 0);
	/* a peer that speaks some other adaptation layer than DDP's */
	sctp_ll_config sc = {.port = -1,
	                     .nstreams = 4,
	                     .adaptation = 0x2,
	                     .require_adaptation = 1,
	                     .unfragmented = 1};
	sctp_ll_ep *se;
	assert_int_equal(sctp_ll_ep_new(base, &sc, &se), 0);
	assert_int_equal(sctp_ll_listen(se, srv_accept, NULL), 0);
	ddp_sctp_config dc;
	memset(&dc, 0, sizeof(dc));
	dc.port = -1;
	dc.ctx = ctx;
	dc.ddp.deliver = on_deliver;
	dc.sctp.assoc = cli_assoc;
	dc.sctp.session_ctl = cli_ctl;
	ddp_sctp_ep *ce;
	ddp_sctp_assoc *a;
	assert_int_equal(ddp_sctp_ep_new(base, &dc, &ce), 0);
	assert_int_equal(ddp_sctp_connect(ce, "127.0.0.1", sctp_ll_ep_port(se), &a), 0);
	double t0 = net_now_s();
	while (!cli_down && net_now_s() - t0 < 10)
		net_run_for(base, 0.01);
	print_message("refused DDP endpoint: status %s, log: %s", ddp_strerror(cli_status), logbuf);
	assert_true(cli_down);
	assert_int_equal(cli_status, DDP_ERR_LLP);
	assert_true(srv_down);
	assert_int_equal(srv_status, DDP_ERR_PROTO);
	/* RFC 4960 §3.3.10.12: the reason crossed and is reported */
	assert_non_null(strstr(logbuf, "aborted by the peer: DDP refused: wrong Adaptation "
	                               "Layer Indication"));
	ddp_sctp_ep_free(ce);
	sctp_ll_ep_free(se);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

/* The ABORT chunk parser (usrsctp hands the chunk to the notification):
 * only the Upper Layer Abort Reason cause is shown, printable, bounded. */
void sctp_usrsctp_peer_abort(const uint8_t *info, size_t n, char *out, size_t outn);

static void test_abort_chunk_parser_bounds(void **state)
{
	(void)state;
	char out[16];
	/* ABORT, one cause 12 "hi\x01" (7 octets + 1 pad) */
	const uint8_t ok[] = { 6, 0, 0, 12, 0, 12, 0, 7, 'h', 'i', 1, 0 };
	sctp_usrsctp_peer_abort(ok, sizeof(ok), out, sizeof(out));
	assert_string_equal(out, "hi?");
	/* a first cause of another code (padded), then 12 */
	const uint8_t two[] = { 6, 0, 0, 20, 0, 1, 0, 5, 9, 0, 0, 0, 0, 12, 0, 6, 'o', 'k', 0, 0 };
	sctp_usrsctp_peer_abort(two, sizeof(two), out, sizeof(out));
	assert_string_equal(out, "ok");
	/* truncated: the cause claims more than the chunk has */
	const uint8_t cut[] = { 6, 0, 0, 10, 0, 12, 0, 40, 'x', 'y' };
	sctp_usrsctp_peer_abort(cut, sizeof(cut), out, sizeof(out));
	assert_string_equal(out, "");
	/* a cause length below its header, a non-ABORT chunk, a short buffer */
	const uint8_t bad[] = { 6, 0, 0, 8, 0, 12, 0, 2 };
	sctp_usrsctp_peer_abort(bad, sizeof(bad), out, sizeof(out));
	assert_string_equal(out, "");
	const uint8_t notabort[] = { 7, 0, 0, 8, 0, 12, 0, 4 };
	sctp_usrsctp_peer_abort(notabort, sizeof(notabort), out, sizeof(out));
	assert_string_equal(out, "");
	sctp_usrsctp_peer_abort(ok, 3, out, sizeof(out));
	assert_string_equal(out, "");
	/* a long reason is cut to the output buffer */
	uint8_t big[4 + 4 + 40];
	memset(big, 'a', sizeof(big));
	big[0] = 6, big[1] = 0, big[2] = 0, big[3] = sizeof(big);
	big[4] = 0, big[5] = 12, big[6] = 0, big[7] = 44;
	sctp_usrsctp_peer_abort(big, sizeof(big), out, sizeof(out));
	assert_int_equal(strlen(out), sizeof(out) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sctp_refused_peer_logs_the_abort_reason),
	    cmocka_unit_test(test_abort_chunk_parser_bounds),
	};
	alarm(30);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
