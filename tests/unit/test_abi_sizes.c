/*
 * test_abi_sizes: every call that takes or fills a public struct reads it
 * by the size the caller was compiled with (DDP_SIZES, ddp/export.h). A
 * program built with a newer header whose struct is larger is served when
 * the octets this library does not know are zero and refused
 * (DDP_ERR_UNSUPPORTED) when they are not; a struct smaller than the first
 * release's is refused (DDP_ERR_INVAL); a struct that holds others is
 * refused when larger (ddp_mpa_config too, whose ddp_session_config may
 * have grown in the caller's header); an output struct is written up to the caller's
 * size and no further. The calls are made through the functions
 * themselves, ddp_x_sized(..., sizes), as a program built with another header
 * would make them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <netinet/in.h>

#include <ddp/mpa.h>
#include <ddp/rdmap.h>
#include <ddp/sctp.h>

#include "nullllp.h"

#define EXTRA 16

/* A ddp_ctx_config with EXTRA octets more, as a newer header could have. */
struct grown_ctx_config {
	ddp_ctx_config c;
	unsigned char extra[EXTRA];
};

static void test_larger_input_with_zero_tail_is_taken(void **state)
{
	struct grown_ctx_config g;
	ddp_ctx *ctx = NULL;

	(void)state;
	memset(&g, 0, sizeof(g));
	g.c.max_pds = 3;
	assert_int_equal(ddp_ctx_new_sized(&g.c, &ctx, DDP_SIZES1(struct grown_ctx_config)), 0);
	assert_non_null(ctx);
	/* the known field was read: a fourth PD is over the cap */
	ddp_pd *pd[4];
	for (int i = 0; i < 3; i++)
		assert_int_equal(ddp_pd_new(ctx, &pd[i]), 0);
	assert_int_equal(ddp_pd_new(ctx, &pd[3]), DDP_ERR_LIMIT);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ddp_pd_free(pd[i]), 0);
	assert_int_equal(ddp_ctx_free(ctx), 0);
}

static void test_larger_input_with_unknown_field_is_refused(void **state)
{
	struct grown_ctx_config g;
	ddp_ctx *ctx = (ddp_ctx *)&g; /* must not be touched on refusal */

	(void)state;
	memset(&g, 0, sizeof(g));
	g.extra[EXTRA - 1] = 1; /* a field this library does not know, set */
	assert_int_equal(ddp_ctx_new_sized(&g.c, &ctx, DDP_SIZES1(struct grown_ctx_config)),
	                 DDP_ERR_UNSUPPORTED);
	assert_ptr_equal(ctx, (ddp_ctx *)&g);
}

static void test_smaller_input_is_refused(void **state)
{
	ddp_ctx_config c;
	ddp_ctx *ctx = NULL;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(ddp_ctx_new_sized(&c, &ctx, sizeof(c) - 8), DDP_ERR_INVAL);
	assert_int_equal(ddp_ctx_new_sized(&c, &ctx, 0), DDP_ERR_INVAL);
	assert_null(ctx);
	/* NULL (defaults) needs no size */
	assert_int_equal(ddp_ctx_new_sized(NULL, &ctx, 0), 0);
	assert_int_equal(ddp_ctx_free(ctx), 0);
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s;
	(void)d;
	(void)user;
}

/* ddp_session_new takes two structs: each is read by its own size. */
static void test_second_struct_is_read_by_its_own_size(void **state)
{
	ddp_ctx *ctx = NULL;
	ddp_session *s = NULL;
	nullllp llp = {0};
	struct {
		ddp_callbacks cb;
		unsigned char extra[EXTRA];
	} g;

	(void)state;
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	memset(&g, 0, sizeof(g));
	g.cb.deliver = deliver;
	g.extra[0] = 0x80;
	assert_int_equal(ddp_session_new_sized(ctx, NULL, &nullllp_ops, &llp, &g.cb, NULL, &s,
	                                       DDP_SIZES2(ddp_session_config, g)),
	                 DDP_ERR_UNSUPPORTED);
	assert_null(s);
	g.extra[0] = 0;
	assert_int_equal(ddp_session_new_sized(ctx, NULL, &nullllp_ops, &llp, &g.cb, NULL, &s,
	                                       DDP_SIZES2(ddp_session_config, g)),
	                 0);
	assert_non_null(s);

	/* output: filled up to the caller's size, zeros past the library's
	 * own, nothing written beyond */
	struct {
		ddp_stats st;
		unsigned char extra[EXTRA];
		unsigned char canary[EXTRA];
	} out;
	memset(&out, 0xa5, sizeof(out));
	assert_int_equal(ddp_session_get_stats_sized(s, &out.st, DDP_SIZES1(ddp_stats) + EXTRA), 0);
	for (int i = 0; i < EXTRA; i++) {
		assert_int_equal(out.extra[i], 0);
		assert_int_equal(out.canary[i], 0xa5);
	}
	assert_int_equal(out.st.msgs_tx, 0);
	/* an output struct smaller than the first release's: refused, and
	 * not written */
	memset(&out, 0xa5, sizeof(out));
	assert_int_equal(ddp_session_get_stats_sized(s, &out.st, DDP_SIZES1(ddp_stats) - 8),
	                 DDP_ERR_INVAL);
	assert_int_equal(((unsigned char *)&out.st)[0], 0xa5);

	assert_int_equal(ddp_session_free(s), 0);
	assert_int_equal(ddp_ctx_free(ctx), 0);
}

static void up(ddp_session *s, void *user)
{
	(void)s;
	(void)user;
}
static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	(void)s;
	(void)stream;
	(void)user;
}
static void down(ddp_session *s, int status, void *user)
{
	(void)s;
	(void)status;
	(void)user;
}

/* ddp_conn_callbacks holds ddp_callbacks: a larger one (a newer header
 * whose ddp_callbacks grew) cannot be read by this release, zero tail or
 * not; the refusal comes before anything is set up. */
static void test_larger_holder_struct_is_refused(void **state)
{
	struct {
		ddp_conn_callbacks cb;
		unsigned char extra[EXTRA];
	} g;
	ddp_listener *l = NULL;

	(void)state;
	memset(&g, 0, sizeof(g));
	g.cb.ddp.deliver = deliver;
	g.cb.up = up;
	g.cb.stream_open = stream_open;
	g.cb.down = down;
	assert_int_equal(ddp_mpa_listen_on_sized(NULL, NULL, "127.0.0.1", 0, NULL, &g.cb, NULL, &l,
	                                         DDP_SIZES2(ddp_mpa_config, g)),
	                 DDP_ERR_UNSUPPORTED);
	assert_null(l);

	struct {
		ddp_sctp_config c;
		unsigned char extra[EXTRA];
	} sc;
	memset(&sc, 0, sizeof(sc));
	ddp_sctp_ep *ep = NULL;
	assert_int_equal(ddp_sctp_ep_new_sized(NULL, &sc.c, &ep, DDP_SIZES1(sc)),
	                 DDP_ERR_UNSUPPORTED);
	assert_null(ep);
}

/* ddp_mpa_config as a newer header would lay it out had ddp_session_config
 * grown by one field: everything after the nested struct sits 8 octets
 * further on. Read by its size alone, its max_conns would land in this
 * release's tcp_sndbuf. */
struct newer_session_config {
	ddp_session_config c;
	uint64_t added;
};
struct newer_mpa_config {
	unsigned char head[offsetof(ddp_mpa_config, session)];
	struct newer_session_config session;
	unsigned max_conns, max_conns_per_addr, tcp_sndbuf;
};

/* Every MPA call that takes ddp_mpa_config refuses one larger than this
 * release's, zero tail or not, before it looks at anything else (NULL
 * base and context: refused for its size, not for them). */
static void test_mpa_config_with_grown_nested_struct_is_refused(void **state)
{
	struct newer_mpa_config g;
	ddp_callbacks cb = {.deliver = deliver};
	ddp_conn_callbacks ccb = {
	    .ddp = {.deliver = deliver}, .stream_open = stream_open, .down = down};
	const ddp_mpa_config *c = (const ddp_mpa_config *)(const void *)&g;
	struct sockaddr_in sin = {.sin_family = AF_INET};
	ddp_mpa_conn *conn = NULL;
	ddp_mpa_listener *ml = NULL;
	ddp_listener *l = NULL;
	ddp_connecting *h = NULL;
	uint64_t sz = DDP_SIZES2(struct newer_mpa_config, ddp_callbacks);
	uint64_t csz = DDP_SIZES2(struct newer_mpa_config, ddp_conn_callbacks);

	(void)state;
	assert_true(sizeof(g) > sizeof(ddp_mpa_config));
	memset(&g, 0, sizeof(g));
	g.session.c.nstreams = 1;
	g.max_conns = 1;
	assert_int_equal(ddp_mpa_connect_sized(NULL, NULL, (struct sockaddr *)&sin, sizeof(sin), c,
	                                       &cb, NULL, NULL, &conn, sz),
	                 DDP_ERR_UNSUPPORTED);
	assert_int_equal(ddp_mpa_listen_sized(NULL, NULL, (struct sockaddr *)&sin, sizeof(sin), c,
	                                      &cb, NULL, NULL, NULL, &ml, sz),
	                 DDP_ERR_UNSUPPORTED);
	assert_int_equal(
	    ddp_mpa_wrap_fd_sized(NULL, NULL, 0, 1, c, &cb, NULL, NULL, NULL, &conn, sz),
	    DDP_ERR_UNSUPPORTED);
	assert_int_equal(ddp_mpa_connect_to_sized(NULL, NULL, "127.0.0.1", 1, c, &ccb, NULL, csz),
	                 DDP_ERR_UNSUPPORTED);
	assert_int_equal(
	    ddp_mpa_listen_on_sized(NULL, NULL, "127.0.0.1", 0, c, &ccb, NULL, &l, csz),
	    DDP_ERR_UNSUPPORTED);
	assert_int_equal(
	    ddp_mpa_connect_async_sized(NULL, NULL, NULL, "127.0.0.1", 1, c, &ccb, NULL, &h, csz),
	    DDP_ERR_UNSUPPORTED);
	assert_int_equal(ddp_mpa_connect_addr_sized(NULL, NULL, (struct sockaddr *)&sin,
	                                            sizeof(sin), c, &ccb, NULL, &h, csz),
	                 DDP_ERR_UNSUPPORTED);
	assert_null(conn);
	assert_null(ml);
	assert_null(l);
	assert_null(h);
	/* the same call with this release's size gets to its other checks */
	assert_int_equal(ddp_mpa_listen_on(NULL, NULL, "127.0.0.1", 0, NULL, &ccb, NULL, &l),
	                 DDP_ERR_INVAL);
}

/* The same for ddp_sctp_config, which holds three structs. */
static void test_sctp_config_with_grown_nested_struct_is_refused(void **state)
{
	struct {
		ddp_sctp_config c;
		uint64_t added;
	} g;
	ddp_conn_callbacks ccb = {
	    .ddp = {.deliver = deliver}, .stream_open = stream_open, .down = down};
	struct sockaddr_in sin = {.sin_family = AF_INET};
	ddp_listener *l = NULL;
	ddp_connecting *h = NULL;
	uint64_t csz = DDP_SIZES2(g, ddp_conn_callbacks);

	(void)state;
	memset(&g, 0, sizeof(g));
	assert_int_equal(
	    ddp_sctp_connect_to_sized(NULL, NULL, "127.0.0.1", 1, &g.c, &ccb, NULL, csz),
	    DDP_ERR_UNSUPPORTED);
	assert_int_equal(
	    ddp_sctp_listen_on_sized(NULL, NULL, "127.0.0.1", 0, &g.c, &ccb, NULL, &l, csz),
	    DDP_ERR_UNSUPPORTED);
	assert_int_equal(ddp_sctp_connect_async_sized(NULL, NULL, NULL, "127.0.0.1", 1, &g.c, &ccb,
	                                              NULL, &h, csz),
	                 DDP_ERR_UNSUPPORTED);
	assert_int_equal(ddp_sctp_connect_addr_sized(NULL, NULL, (struct sockaddr *)&sin,
	                                             sizeof(sin), &g.c, &ccb, NULL, &h, csz),
	                 DDP_ERR_UNSUPPORTED);
	assert_null(l);
	assert_null(h);
}

/* ddp_rdmap_dev_callbacks fills a ddp_callbacks: up to the caller's size. */
static void test_output_table_stops_at_callers_size(void **state)
{
	struct {
		ddp_callbacks cb;
		unsigned char canary[EXTRA];
	} out;

	(void)state;
	memset(&out, 0xa5, sizeof(out));
	ddp_rdmap_dev_callbacks_sized(&out.cb, DDP_SIZES1(ddp_callbacks));
	assert_non_null(out.cb.deliver);
	for (int i = 0; i < EXTRA; i++)
		assert_int_equal(out.canary[i], 0xa5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_larger_input_with_zero_tail_is_taken),
	    cmocka_unit_test(test_larger_input_with_unknown_field_is_refused),
	    cmocka_unit_test(test_smaller_input_is_refused),
	    cmocka_unit_test(test_second_struct_is_read_by_its_own_size),
	    cmocka_unit_test(test_larger_holder_struct_is_refused),
	    cmocka_unit_test(test_mpa_config_with_grown_nested_struct_is_refused),
	    cmocka_unit_test(test_sctp_config_with_grown_nested_struct_is_refused),
	    cmocka_unit_test(test_output_table_stops_at_callers_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
