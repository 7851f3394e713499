/* The SCTP receive-buffer sizing rule (sctp/sctp_rcvbuf.h): twice what
 * was read over the last round trip (a sliding window of timer ticks), in
 * 64 KiB steps, between the floor and the cap; never smaller; no growth
 * where the round trip is under 1 ms or not known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sctp/usrsctp/sctp_rcvbuf.h"

#define MIN SCTP_RCVBUF_AUTO_MIN
#define MAX SCTP_RCVBUF_AUTO_MAX

static struct sctp_rcvbuf_meter m;

static int reset(void **state)
{
	(void)state;
	memset(&m, 0, sizeof(m));
	return 0;
}

/* n ticks of 10 ms reading per_tick octets each; the last result */
static uint32_t ticks(uint32_t cur, int n, uint32_t per_tick, uint32_t rtt)
{
	for (int i = 0; i < n; i++)
		cur = sctp_rcvbuf_step(&m, cur, per_tick, 10, rtt);
	return cur;
}

static void test_sub_ms_path_keeps_the_floor(void **state)
{
	(void)state;
	/* a LAN: 400 MB/s, round trip under 1 ms (or not known yet) */
	assert_int_equal(ticks(MIN, 50, 4000000, 0), MIN);
	/* whole ms: a 1 read may be a sub-ms path too */
	assert_int_equal(ticks(MIN, 50, 4000000, 1), MIN);
}

static void test_window_limited_sender_doubles_it(void **state)
{
	(void)state;
	/* 20 ms round trip, the peer fills the whole 1 MiB window each
	 * round trip (half of it per 10 ms tick): 2 MiB once a round trip
	 * of ticks is seen, not before */
	assert_int_equal(ticks(MIN, 1, MIN / 2, 20), MIN);
	assert_int_equal(ticks(MIN, 1, MIN / 2, 20), 2 * MIN);
}

static void test_rate_below_the_window_leaves_it(void **state)
{
	(void)state;
	/* 10 MB/s at 20 ms: 200 kB per round trip, 400 kB wanted */
	assert_int_equal(ticks(MIN, 40, 100000, 20), MIN);
	assert_int_equal(ticks(4 * MIN, 40, 100000, 20), 4 * MIN); /* never shrinks */
	assert_int_equal(ticks(MIN, 40, 0, 20), MIN);
}

static void test_only_the_last_round_trip_counts(void **state)
{
	(void)state;
	/* a burst more than a round trip ago does not count: 3 ticks at
	 * 1 MiB and 2 quiet ones before the round trip (20 ms) is known,
	 * then a quiet one: the last two ticks decide */
	uint32_t cur = ticks(MIN, 3, MIN, 0);
	cur = ticks(cur, 2, 1000, 0);
	assert_int_equal(cur, MIN);
	assert_int_equal(ticks(cur, 1, 1000, 20), MIN);
	/* the same with the burst inside the round trip grows it */
	assert_int_equal(ticks(cur, 1, MIN, 20), 2 * MIN + SCTP_RCVBUF_AUTO_STEP);
}

static void test_steps_and_cap(void **state)
{
	uint32_t n;
	(void)state;
	/* 700,000 octets per 50 ms round trip (140,000 a tick): 1,400,000
	 * rounded up to 64 KiB */
	n = ticks(MIN, 5, 140000, 50);
	assert_int_equal(n % SCTP_RCVBUF_AUTO_STEP, 0);
	assert_true(n >= 1400000 && n < 1400000 + SCTP_RCVBUF_AUTO_STEP);
	/* 1 Gbit/s at 100 ms would want 25 MB: capped */
	assert_int_equal(ticks(MIN, 10, 1250000, 100), MAX);
	assert_int_equal(ticks(MAX, 10, 1250000, 100), MAX);
}

static void test_round_trip_longer_than_the_history(void **state)
{
	(void)state;
	/* 640 ms round trip, 320 ms of history: a full history is scaled up
	 * (20 kB a tick is 1.28 MB per round trip: 2.56 MB wanted) */
	uint32_t n = ticks(MIN, SCTP_RCVBUF_SLOTS, 20000, 640);
	assert_true(n >= 2560000 && n < 2560000 + SCTP_RCVBUF_AUTO_STEP);
}

static void test_partial_history_is_not_extrapolated(void **state)
{
	(void)state;
	/* two ticks of a 100 ms round trip: 2 x 300 kB read, 1.2 MB wanted
	 * from what was seen, not 6 MB from a guess */
	uint32_t n = ticks(MIN, 2, 300000, 100);
	assert_true(n >= 1200000 && n < 1200000 + SCTP_RCVBUF_AUTO_STEP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_sub_ms_path_keeps_the_floor, reset),
		cmocka_unit_test_setup(test_window_limited_sender_doubles_it, reset),
		cmocka_unit_test_setup(test_rate_below_the_window_leaves_it, reset),
		cmocka_unit_test_setup(test_only_the_last_round_trip_counts, reset),
		cmocka_unit_test_setup(test_steps_and_cap, reset),
		cmocka_unit_test_setup(test_round_trip_longer_than_the_history, reset),
		cmocka_unit_test_setup(test_partial_history_is_not_extrapolated, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
