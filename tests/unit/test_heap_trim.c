/* When the adapters hand freed heap back to the system (common/heap_trim.h):
 * after the units alive fell to half of their highest count since the last
 * trim, and by at least HEAP_TRIM_MIN; never while connections come and
 * go at a steady level. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/heap_trim.h"

/* 10,000 connections close one by one: a trim at each halving, until
 * fewer than HEAP_TRIM_MIN are left to free. */
static void test_heap_trim_halvings_of_a_scale_down(void **state)
{
	struct heap_trim t;
	long at[16], n = 0;
	memset(&t, 0, sizeof(t));
	heap_trim_add(&t, 10000);
	for (long live = 10000; live > 0; live--)
		if (heap_trim_sub(&t, 1) && n < 16)
			at[n++] = live - 1;
	static const long want[] = {5000, 2500, 1250, 625, 312, 56};
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (long i = 0; i < n; i++)
		assert_int_equal(at[i], want[i]);
}

/* Connections that come and go at a steady level reuse the freed pages:
 * no trim, however many went in all. */
static void test_heap_trim_never_under_churn(void **state)
{
	struct heap_trim t;
	memset(&t, 0, sizeof(t));
	heap_trim_add(&t, 1000);
	for (int i = 0; i < 100000; i++) {
		assert_int_equal(heap_trim_sub(&t, 1), 0);
		heap_trim_add(&t, 1);
	}
	/* a dip of a few hundred is churn too */
	for (int i = 0; i < 400; i++)
		assert_int_equal(heap_trim_sub(&t, 1), 0);
	heap_trim_add(&t, 400);
}

/* Fewer than HEAP_TRIM_MIN units never trim; one large unit (an
 * association of 65,535 streams) does when it goes. */
static void test_heap_trim_small_and_large(void **state)
{
	struct heap_trim t;
	memset(&t, 0, sizeof(t));
	heap_trim_add(&t, HEAP_TRIM_MIN - 1);
	for (int i = 0; i < HEAP_TRIM_MIN - 1; i++)
		assert_int_equal(heap_trim_sub(&t, 1), 0);
	heap_trim_add(&t, 65535);
	assert_int_equal(heap_trim_sub(&t, 65535), 1);
	/* the high was lowered with the trim: the next scale-down counts
	 * from where it is now */
	heap_trim_add(&t, 16);
	assert_int_equal(heap_trim_sub(&t, 16), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_heap_trim_halvings_of_a_scale_down),
	    cmocka_unit_test(test_heap_trim_never_under_churn),
	    cmocka_unit_test(test_heap_trim_small_and_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
