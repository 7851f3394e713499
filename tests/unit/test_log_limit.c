/* The rate limit of the lines a peer can trigger (src/log_limit.h): per
 * kind DDP_LOG_KIND_PER_S lines a second, all kinds together a bucket of
 * DDP_LOG_BURST refilled at DDP_LOG_PER_S a second, the rest counted and
 * reported in one line per kind once its second is over, or when the
 * context is freed. Real clock; one wait of 1.05 s. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ddp/ddp.h>
#include "log_limit.h"

static char lines[64][256];
static int nlines;

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	(void)user, (void)level;
	if (nlines < 64)
		snprintf(lines[nlines], sizeof(lines[0]), "%s", msg);
	nlines++;
}

static long count_of(const char *line)
{
	const char *c = strstr(line, " more like this suppressed");
	if (!c)
		return -1;
	while (c > line && c[-1] >= '0' && c[-1] <= '9')
		c--;
	return strtol(c, NULL, 10);
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&t, NULL);
}

static void test_log_limit_per_kind_bucket_and_counts(void **st)
{
	(void)st;
	ddp_ctx *ctx;
	ddp_ctx_config cc = {.log = on_log};
	assert_int_equal(ddp_ctx_new(&cc, &ctx), 0);
	/* one kind: 3 lines, 97 counted */
	for (int i = 0; i < 100; i++)
		ddp_llp_log_limited(ctx, DDP_LOGK_MPA_STARTUP_EVICT, DDP_LOG_WARN, "evict %d", i);
	assert_int_equal(nlines, DDP_LOG_KIND_PER_S);
	assert_string_equal(lines[0], "evict 0");
	assert_string_equal(lines[2], "evict 2");
	/* two more kinds: the bucket (5) has 2 lines left for both */
	for (int i = 0; i < 100; i++) {
		ddp_llp_log_limited(ctx, DDP_LOGK_MPA_STARTUP_TIMEOUT, DDP_LOG_WARN, "timeout %d",
		                    i);
		ddp_llp_log_limited(ctx, DDP_LOGK_SCTP_IDLE, DDP_LOG_WARN, "idle %d", i);
	}
	assert_int_equal(nlines, DDP_LOG_BURST);
	ddp_llp_log_flush(ctx); /* nothing is due within the second */
	assert_int_equal(nlines, DDP_LOG_BURST);
	/* a second later: the counts, then the new line */
	sleep_ms(1050);
	ddp_llp_log_limited(ctx, DDP_LOGK_MPA_STARTUP_EVICT, DDP_LOG_WARN, "evict again");
	long sum = 0;
	int counts = 0;
	for (int i = DDP_LOG_BURST; i < nlines; i++)
		if (count_of(lines[i]) >= 0)
			sum += count_of(lines[i]), counts++;
	assert_true(counts >= 1);
	assert_string_equal(lines[nlines - 1], "evict again");
	assert_non_null(strstr(lines[DDP_LOG_BURST], "MPA start-up cap: eviction: 97 more like "
	                                             "this suppressed"));
	/* what the bucket could not report yet comes with the context */
	int before = nlines;
	assert_int_equal(ddp_ctx_free(ctx), 0);
	for (int i = before; i < nlines; i++)
		if (count_of(lines[i]) >= 0)
			sum += count_of(lines[i]), counts++;
	/* 300 lines asked for: every one logged or counted */
	assert_int_equal(DDP_LOG_BURST + sum, 300);
	assert_int_equal(counts, 3);
}

static void test_log_limit_without_hook_or_ctx_is_a_no_op(void **st)
{
	(void)st;
	ddp_ctx *ctx;
	ddp_ctx_config cc = {0};
	ddp_llp_log_limited(NULL, DDP_LOGK_SCTP_IDLE, DDP_LOG_WARN, "x");
	ddp_llp_log_flush(NULL);
	assert_int_equal(ddp_ctx_new(&cc, &ctx), 0);
	for (int i = 0; i < 10; i++)
		ddp_llp_log_limited(ctx, DDP_LOGK_SCTP_IDLE, DDP_LOG_WARN, "x");
	assert_int_equal(ddp_ctx_free(ctx), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_log_limit_per_kind_bucket_and_counts),
	    cmocka_unit_test(test_log_limit_without_hook_or_ctx_is_a_no_op),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
