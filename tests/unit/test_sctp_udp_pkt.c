/* The send queue's packets (sctp_udp_pkt.c): a packet the owner thread
 * gives back is handed out again for the next one of its size class; the
 * free lists hold at most PKT_POOL_BYTES of each class; a packet queued by
 * another thread, or one larger than a jumbo packet, never comes from them;
 * and sctp_udp_pkt_pool_free empties them. Driven directly: no socket, no
 * usrsctp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sctp/udp/sctp_udp_int.h"

static struct sctp_udp *sock(void)
{
	struct sctp_udp *u = calloc(1, sizeof(*u));
	assert_non_null(u);
	u->fd = -1;
	return u;
}

static void sock_free(struct sctp_udp *u)
{
	sctp_udp_pkt_pool_free(u);
	free(u);
}

static size_t pooled(const struct sctp_udp *u)
{
	size_t n = 0;
	for (int c = 0; c < PKT_CLASSES; c++)
		n += u->npool[c];
	return n;
}

static void test_pkt_given_back_is_reused_for_its_size(void **state)
{
	struct sctp_udp *u = sock();
	(void)state;
	struct pkt *a = sctp_udp_pkt_new(u, 1452, 1);
	assert_non_null(a);
	memset(a->data, 0xa5, 1452); /* the whole capacity asked for is there */
	sctp_udp_pkt_free(u, a);
	assert_int_equal(pooled(u), 1);
	/* a jumbo packet does not take the small one */
	struct pkt *j = sctp_udp_pkt_new(u, 8000, 1);
	assert_non_null(j);
	assert_ptr_not_equal(j, a);
	memset(j->data, 0x5a, 8000);
	/* the next small one does */
	struct pkt *b = sctp_udp_pkt_new(u, 100, 1);
	assert_ptr_equal(b, a);
	assert_int_equal(pooled(u), 0);
	sctp_udp_pkt_free(u, b);
	sctp_udp_pkt_free(u, j);
	assert_int_equal(pooled(u), 2);
	sock_free(u);
}

static void test_pkt_other_thread_never_takes_from_the_lists(void **state)
{
	struct sctp_udp *u = sock();
	(void)state;
	struct pkt *a = sctp_udp_pkt_new(u, 1000, 1);
	sctp_udp_pkt_free(u, a);
	struct pkt *b = sctp_udp_pkt_new(u, 1000, 0);
	assert_non_null(b);
	assert_ptr_not_equal(b, a);
	assert_int_equal(pooled(u), 1);
	/* the owner gives it back like any other (same capacity) */
	sctp_udp_pkt_free(u, b);
	assert_int_equal(pooled(u), 2);
	sock_free(u);
}

static void test_pkt_larger_than_jumbo_is_never_kept(void **state)
{
	struct sctp_udp *u = sock();
	(void)state;
	struct pkt *k = sctp_udp_pkt_new(u, UDP_MAX, 1);
	assert_non_null(k);
	memset(k->data, 1, UDP_MAX);
	sctp_udp_pkt_free(u, k);
	assert_int_equal(pooled(u), 0);
	sock_free(u);
}

static void test_pkt_lists_are_bounded(void **state)
{
	struct sctp_udp *u = sock();
	enum { N = 4096 };
	struct pkt **k = calloc(N, sizeof(*k));
	(void)state;
	assert_non_null(k);
	for (int c = 0; c < PKT_CLASSES; c++) {
		size_t len = c == 0 ? 1400 : 8900;
		for (int i = 0; i < N; i++)
			assert_non_null(k[i] = sctp_udp_pkt_new(u, len, 1));
		for (int i = 0; i < N; i++)
			sctp_udp_pkt_free(u, k[i]);
		/* at most PKT_POOL_BYTES of the class, and more than a few */
		assert_true(u->npool[c] * len <= PKT_POOL_BYTES);
		assert_true(u->npool[c] > 64);
	}
	sctp_udp_pkt_pool_free(u);
	assert_int_equal(pooled(u), 0);
	assert_null(u->pool[0]);
	assert_null(u->pool[1]);
	free(k);
	sock_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pkt_given_back_is_reused_for_its_size),
		cmocka_unit_test(test_pkt_other_thread_never_takes_from_the_lists),
		cmocka_unit_test(test_pkt_larger_than_jumbo_is_never_kept),
		cmocka_unit_test(test_pkt_lists_are_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
