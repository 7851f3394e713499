/* What a ULP can attach to and ask of a session: user-data
 * slots, counters, queued octets, the writable callback, the first TO of a
 * tagged delivery, names of error triples, and what keeps a context
 * alive. Over the in-memory LLP pair (core unit test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <ddp/ddp.h>

#include "memllp.h"

/* Recording callbacks plus a writable counter: the memllp recorder wants
 * its side as user pointer, so route through this fixture. */
struct fx {
	memllp *m;
	unsigned writable[2];
	uint32_t writable_stream;
	int send_in_writable; /* the writable callback sends one message */
};

static memllp_side *side_of(struct fx *f, ddp_session *s)
{
	return &f->m->side[memllp_session(f->m, 0) == s ? 0 : 1];
}

static void f_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	memllp_recorder.deliver(s, d, side_of(user, s));
}

static void f_send_done(ddp_session *s, uint32_t st, void *ctx, int status, void *user)
{
	memllp_recorder.send_done(s, st, ctx, status, side_of(user, s));
}

static void f_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	memllp_recorder.error(s, e, side_of(user, s));
}

static uint8_t payload[8192];

static void f_writable(ddp_session *s, uint32_t stream, void *user)
{
	struct fx *f = user;
	f->writable[side_of(f, s)->idx]++;
	f->writable_stream = stream;
	if (f->send_in_writable) {
		struct iovec iov = { payload, 10 };
		assert_int_equal(ddp_send_untagged(s, stream, 0, 0, &iov, 1, NULL), 0);
	}
}

static const ddp_callbacks fx_cb = {
	.deliver = f_deliver, .send_done = f_send_done, .error = f_error,
	.writable = f_writable,
};

static void fx_new(struct fx *f, memllp_cfg *cfg)
{
	memset(f, 0, sizeof(*f));
	cfg->cb[0] = cfg->cb[1] = &fx_cb;
	cfg->user[0] = cfg->user[1] = f;
	assert_int_equal(memllp_new(cfg, &f->m), 0);
}

static int send_u(ddp_session *s, uint32_t stream, size_t n)
{
	struct iovec iov = { payload, n };
	return ddp_send_untagged(s, stream, 0, 0, &iov, 1, NULL);
}

static void test_user_data_slots_are_the_ulps(void **state)
{
	(void)state;
	struct fx f;
	memllp_cfg cfg = { .seed = 1 };
	cfg.scfg[0].nstreams = cfg.scfg[1].nstreams = 3;
	fx_new(&f, &cfg);
	ddp_session *s = memllp_session(f.m, 0);
	int a, b, c;

	assert_null(ddp_session_user_data(s));
	assert_null(ddp_stream_user_data(s, 2));
	ddp_session_set_user_data(s, &a);
	assert_int_equal(ddp_stream_set_user_data(s, 0, &b), 0);
	assert_int_equal(ddp_stream_set_user_data(s, 2, &c), 0);
	assert_int_equal(ddp_stream_set_user_data(s, 3, &c), DDP_ERR_INVAL);
	assert_int_equal(ddp_stream_set_user_data(NULL, 0, &c), DDP_ERR_INVAL);
	assert_ptr_equal(ddp_session_user_data(s), &a);
	assert_ptr_equal(ddp_stream_user_data(s, 0), &b);
	assert_null(ddp_stream_user_data(s, 1));
	assert_ptr_equal(ddp_stream_user_data(s, 2), &c);
	assert_null(ddp_stream_user_data(s, 3));
	assert_null(ddp_session_user_data(NULL));
	/* the slots do not change what the callbacks get */
	assert_int_equal(ddp_post_recv(memllp_session(f.m, 1), 0, 0, payload + 4096, 100, NULL),
			 0);
	assert_int_equal(send_u(s, 0, 10), 0);
	memllp_pump(f.m);
	assert_int_equal(f.m->side[1].ndlv, 1);
	memllp_free(f.m);
}

static void test_stats_count_messages_octets_and_errors(void **state)
{
	(void)state;
	struct fx f;
	memllp_cfg cfg = { .seed = 2, .hdr_first = 1 };
	cfg.scfg[0].nstreams = cfg.scfg[1].nstreams = 2;
	fx_new(&f, &cfg);
	ddp_session *a = memllp_session(f.m, 0), *b = memllp_session(f.m, 1);
	static uint8_t rb[3][4096];
	ddp_stats st;

	for (int i = 0; i < 3; i++)
		assert_int_equal(ddp_post_recv(b, 1, 0, rb[i], sizeof(rb[i]), NULL), 0);
	assert_int_equal(send_u(a, 1, 100), 0);
	assert_int_equal(send_u(a, 1, 2000), 0);
	assert_int_equal(send_u(a, 1, 300), 0);
	assert_int_equal(send_u(a, 1, 5), 0); /* no buffer: (2, 0x02) at b */
	assert_int_equal(send_u(a, 0, 7), 0); /* stream 0: no buffer either */
	memllp_pump(f.m);

	assert_int_equal(ddp_stream_get_stats(a, 1, &st), 0);
	assert_int_equal(st.msgs_tx, 4);
	assert_int_equal(st.octets_tx, 2405);
	assert_int_equal(st.msgs_rx, 0);
	assert_int_equal(st.queued_msgs, 0);
	assert_int_equal(ddp_stream_get_stats(b, 1, &st), 0);
	assert_int_equal(st.msgs_rx, 3);
	assert_int_equal(st.octets_rx, 2400);
	assert_int_equal(st.errors, 1);
	assert_int_equal(st.copied, 0);
	assert_int_equal(ddp_session_get_stats(b, &st), 0);
	assert_int_equal(st.msgs_rx, 3);
	assert_int_equal(st.errors, 2);
	assert_int_equal(ddp_session_get_stats(a, &st), 0);
	assert_int_equal(st.msgs_tx, 5);
	assert_int_equal(st.octets_tx, 2412);
	assert_int_equal(ddp_stream_get_stats(a, 2, &st), DDP_ERR_INVAL);
	assert_int_equal(ddp_session_get_stats(NULL, &st), DDP_ERR_INVAL);
	memllp_free(f.m);
}

/* 5,000 pipelined requests on a queue of 4,096 messages: the refused send
 * arms the writable callback, which runs when a message completed. */
static void test_limit_refusal_arms_writable(void **state)
{
	(void)state;
	struct fx f;
	memllp_cfg cfg = { .seed = 3, .pending = 1 };
	cfg.scfg[0].max_tx_queued = 2;
	fx_new(&f, &cfg);
	ddp_session *a = memllp_session(f.m, 0);
	uint32_t n = 9;

	assert_int_equal(send_u(a, 0, 1000), 0);
	assert_int_equal(send_u(a, 0, 24), 0);
	assert_int_equal(ddp_stream_queued(a, 0, &n), 1024);
	assert_int_equal(n, 2);
	assert_int_equal(send_u(a, 0, 1), DDP_ERR_LIMIT);
	assert_int_equal(send_u(a, 0, 1), DDP_ERR_LIMIT);
	assert_int_equal(f.writable[0], 0);
	f.send_in_writable = 1; /* and it may send from inside the callback */
	memllp_complete(f.m, 0);
	assert_int_equal(f.writable[0], 1); /* once per arming */
	assert_int_equal(f.writable_stream, 0);
	memllp_complete(f.m, 0);
	assert_int_equal(f.writable[0], 1);
	assert_int_equal(ddp_stream_queued(a, 0, NULL), 0);
	ddp_stats st;
	assert_int_equal(ddp_stream_get_stats(a, 0, &st), 0);
	assert_int_equal(st.msgs_tx, 3); /* the one sent from writable too */
	assert_int_equal(st.octets_tx, 1034);
	memllp_free(f.m);
}

static void test_notify_writable_at_low_water(void **state)
{
	(void)state;
	struct fx f;
	memllp_cfg cfg = { .seed = 4, .pending = 1 };
	fx_new(&f, &cfg);
	ddp_session *a = memllp_session(f.m, 0);

	assert_int_equal(ddp_stream_notify_writable(a, 0, 0), 1); /* empty: send now */
	for (int i = 0; i < 3; i++)
		assert_int_equal(send_u(a, 0, 1000), 0);
	assert_int_equal(ddp_stream_notify_writable(a, 0, 5000), 1);
	assert_int_equal(ddp_stream_notify_writable(a, 0, 999), 0); /* armed */
	assert_int_equal(ddp_stream_notify_writable(a, 1, 0), DDP_ERR_INVAL);
	assert_int_equal(f.writable[0], 0);
	memllp_complete(f.m, 0);
	assert_int_equal(ddp_stream_queued(a, 0, NULL), 0);
	assert_int_equal(f.writable[0], 1);
	/* a closed stream can send nothing more: nothing to wait for */
	assert_int_equal(ddp_stream_close(a, 0), 0);
	assert_int_equal(ddp_stream_notify_writable(a, 0, 0), DDP_ERR_CLOSED);
	memllp_free(f.m);
}

/* A flushed stream never calls writable (nothing more can be sent). */
static void test_abort_disarms_writable(void **state)
{
	(void)state;
	struct fx f;
	memllp_cfg cfg = { .seed = 5, .pending = 1 };
	fx_new(&f, &cfg);
	ddp_session *a = memllp_session(f.m, 0);

	assert_int_equal(send_u(a, 0, 1000), 0);
	assert_int_equal(ddp_stream_notify_writable(a, 0, 0), 0);
	assert_int_equal(ddp_stream_abort(a, 0), 0);
	assert_int_equal(ddp_stream_queued(a, 0, NULL), 0);
	memllp_pump(f.m);
	assert_int_equal(f.writable[0], 0);
	memllp_free(f.m);
}

/* DDP-SEG-5: a tagged message spans [to_first, to_first + len). */
static void test_tagged_delivery_reports_the_first_to(void **state)
{
	(void)state;
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		memllp_cfg cfg = { .seed = 6, .hdr_first = hf, .mulpdu = 1500 };
		fx_new(&f, &cfg);
		ddp_session *a = memllp_session(f.m, 0), *b = memllp_session(f.m, 1);
		static uint8_t buf[16384];
		ddp_mr_attr at = { .addr = buf, .len = sizeof(buf), .to_base = 1u << 20,
				   .access = DDP_ACCESS_REMOTE_WRITE, .session = b };
		uint32_t stag;
		assert_int_equal(ddp_stag_register(ddp_session_ctx(b), &at, &stag), 0);
		struct iovec iov = { payload, 4000 };
		uint64_t to = (1u << 20) + 100;
		assert_int_equal(ddp_send_tagged(a, 0, stag, to, 0, &iov, 1, NULL), 0);
		memllp_pump(f.m);
		assert_int_equal(f.m->side[1].ndlv, 1);
		const ddp_delivery *d = &f.m->side[1].dlv[0].d;
		assert_int_equal(d->tagged, 1);
		assert_int_equal(d->len, 4000);
		assert_int_equal(d->to_first, to);
		assert_true(d->to > to); /* three segments: the last one's TO */
		assert_int_equal(d->to + (to + 4000 - d->to), to + 4000);
		assert_int_equal(ddp_stag_invalidate(ddp_session_ctx(b), stag), 0);
		memllp_free(f.m);
	}
}

static void test_error_triples_have_names(void **state)
{
	(void)state;
	assert_string_equal(ddp_error_str(DDP_LAYER_DDP, DDP_ETYPE_TAGGED, 0x00),
			    "invalid STag");
	assert_string_equal(ddp_error_str(DDP_LAYER_DDP, DDP_ETYPE_UNTAGGED, 0x02),
			    "invalid MSN, no buffer");
	assert_string_equal(ddp_error_str(DDP_LAYER_DDP, DDP_ETYPE_CATASTROPHIC, 0),
			    "DDP local catastrophic error");
	assert_string_equal(ddp_error_str(DDP_LAYER_DDP, DDP_ETYPE_LLP, DDP_ECODE_LLP_BAD_SSN),
			    "SSN out of window");
	assert_string_equal(ddp_error_str(DDP_LAYER_LLP, 0, DDP_MPA_ECODE_CRC), "MPA CRC error");
	assert_string_equal(ddp_error_str(DDP_LAYER_LLP, 0, DDP_MPA_ECODE_MARKER),
			    "MPA marker error");
	/* undefined triples */
	assert_string_equal(ddp_error_str(DDP_LAYER_DDP, DDP_ETYPE_UNTAGGED, 0x00),
			    "undefined error");
	assert_string_equal(ddp_error_str(DDP_LAYER_DDP, DDP_ETYPE_TAGGED, 0x05),
			    "undefined error");
	assert_string_equal(ddp_error_str(DDP_LAYER_DDP, 7, 0), "undefined error");
	assert_string_equal(ddp_error_str(DDP_LAYER_LLP, 0, 0x08), "undefined error");
	assert_string_equal(ddp_error_str(DDP_LAYER_LLP, 1, 0x02), "undefined error");
	assert_string_equal(ddp_error_str(DDP_LAYER_RDMAP, 0, 0), "undefined error");
	assert_string_equal(ddp_error_str(9, 0, 0), "undefined error");
}

static char logged[512];
static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	(void)user;
	if (level == DDP_LOG_ERROR)
		snprintf(logged, sizeof(logged), "%s", msg);
}

static void test_ctx_free_says_what_is_alive(void **state)
{
	(void)state;
	ddp_ctx_config cc = { .log = on_log };
	ddp_ctx *ctx;
	ddp_pd *pd;
	ddp_ctx_live live;
	static uint8_t buf[64];

	assert_int_equal(ddp_ctx_new(&cc, &ctx), 0);
	assert_int_equal(ddp_pd_new(ctx, &pd), 0);
	ddp_mr_attr at = { .addr = buf, .len = sizeof(buf),
			   .access = DDP_ACCESS_REMOTE_WRITE, .pd = pd };
	uint32_t stag;
	assert_int_equal(ddp_stag_register(ctx, &at, &stag), 0);
	assert_int_equal(ddp_ctx_live_objects(ctx, &live), 0);
	assert_int_equal(live.sessions, 0);
	assert_int_equal(live.pds, 1);
	assert_int_equal(live.stags, 1);
	logged[0] = 0;
	assert_int_equal(ddp_ctx_free(ctx), DDP_ERR_BUSY);
	assert_non_null(strstr(logged, "0 session(s), 1 PD(s), 1 STag(s)"));
	assert_int_equal(ddp_stag_invalidate(ctx, stag), 0);
	assert_int_equal(ddp_pd_free(pd), 0);
	assert_int_equal(ddp_ctx_live_objects(ctx, &live), 0);
	assert_int_equal(live.pds + live.stags + live.sessions, 0);
	assert_int_equal(ddp_ctx_live_objects(NULL, &live), DDP_ERR_INVAL);
	assert_int_equal(ddp_ctx_free(ctx), 0);
}

static int free_rc = 1;
static void free_inside_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)d, (void)user;
	free_rc = ddp_session_free(s);
}

/* Lifecycle: freeing a session inside its own callback is refused, not a
 * use after free; after the callback it works. */
static void test_session_free_inside_its_callback_is_refused(void **state)
{
	(void)state;
	static const ddp_callbacks cb = { .deliver = free_inside_deliver };
	memllp_cfg cfg = { .seed = 7 };
	cfg.cb[1] = &cb;
	memllp *m;
	assert_int_equal(memllp_new(&cfg, &m), 0);
	static uint8_t rb[64];
	ddp_session *b = memllp_session(m, 1);
	assert_int_equal(ddp_post_recv(b, 0, 0, rb, sizeof(rb), NULL), 0);
	assert_int_equal(send_u(memllp_session(m, 0), 0, 10), 0);
	memllp_pump(m);
	assert_int_equal(free_rc, DDP_ERR_BUSY);
	memllp_free(m); /* frees both sessions: b is still alive */
}

/* The run-time version is the headers' (ddp_version, DDP_LIB_VERSION_*). */
static void test_version_matches_the_headers(void **state)
{
	(void)state;
	assert_string_equal(ddp_version(), DDP_LIB_VERSION_STRING);
	assert_int_equal(ddp_version_num(), DDP_LIB_VERSION_NUM);
	assert_int_equal(DDP_LIB_VERSION_NUM >> 16, DDP_LIB_VERSION_MAJOR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_matches_the_headers),
		cmocka_unit_test(test_user_data_slots_are_the_ulps),
		cmocka_unit_test(test_stats_count_messages_octets_and_errors),
		cmocka_unit_test(test_limit_refusal_arms_writable),
		cmocka_unit_test(test_notify_writable_at_low_water),
		cmocka_unit_test(test_abort_disarms_writable),
		cmocka_unit_test(test_tagged_delivery_reports_the_first_to),
		cmocka_unit_test(test_error_triples_have_names),
		cmocka_unit_test(test_ctx_free_says_what_is_alive),
		cmocka_unit_test(test_session_free_inside_its_callback_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
