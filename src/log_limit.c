/* Rate-limited log lines of a context: the bound and the counts of
 * src/log_limit.h, on the monotonic clock. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "core.h"
#include "log_limit.h"

static const char *const kind_names[DDP_LOG_KINDS] = {
    [DDP_LOGK_REORDER_REFUSED] = "reorder budget: stream refused a ring",
    [DDP_LOGK_MPA_STARTUP_EVICT] = "MPA start-up cap: eviction",
    [DDP_LOGK_MPA_STARTUP_REFUSE] = "MPA start-up cap: refusal",
    [DDP_LOGK_MPA_STARTUP_TIMEOUT] = "MPA start-up time-out",
    [DDP_LOGK_MPA_CONN_EVICT] = "MPA connection cap: eviction",
    [DDP_LOGK_MPA_CONN_REFUSE] = "MPA connection cap: refusal",
    [DDP_LOGK_MPA_UNRESPONSIVE] = "MPA peer unresponsive",
    [DDP_LOGK_MPA_CLOSE_DEADLINE] = "MPA graceful close past its deadline",
    [DDP_LOGK_SCTP_CONTROL] = "ddp-sctp: control-plane anomaly",
    [DDP_LOGK_SCTP_SSN_SKIP] = "ddp-sctp: DDP-SSN of a control chunk not recorded",
    [DDP_LOGK_SCTP_NOT_DDP] = "ddp-sctp: PPID not DDP",
    [DDP_LOGK_SCTP_ASSOC_CAP] = "SCTP association cap",
    [DDP_LOGK_SCTP_STREAM_CAP] = "SCTP stream cap",
    [DDP_LOGK_SCTP_IDLE] = "SCTP association without a DDP stream session timed out",
    [DDP_LOGK_SCTP_SHUTDOWN_ABORT] = "SCTP SHUTDOWN not finished: ABORT",
    [DDP_LOGK_SCTP_PEER_ABORT] = "SCTP association aborted by the peer",
    [DDP_LOGK_SCTP_CLOSE_DEADLINE] = "SCTP graceful close past its deadline",
    [DDP_LOGK_SCTP_UNRESPONSIVE] = "SCTP peer unresponsive",
};

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	/* never 0: 0 means "not yet" in struct ddp_log_limit */
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000 + 1;
}

/* Take a line from the shared bucket; 0 when it is empty. */
static int take_token(struct ddp_log_limit *ll, uint64_t now)
{
	const uint64_t full = (uint64_t)DDP_LOG_BURST * 1000;
	if (!ll->filled_ms) {
		ll->tokens_milli = full;
	} else {
		ll->tokens_milli += (now - ll->filled_ms) * DDP_LOG_PER_S;
		if (ll->tokens_milli > full)
			ll->tokens_milli = full;
	}
	ll->filled_ms = now;
	if (ll->tokens_milli < 1000)
		return 0;
	ll->tokens_milli -= 1000;
	return 1;
}

static void report(ddp_ctx *ctx, enum ddp_log_kind k, uint64_t now)
{
	struct ddp_log_limit *ll = &ctx->log;
	ddp_llp_log(ctx, DDP_LOG_WARN, "%s: %llu more like this suppressed in the last %llu ms",
	            kind_names[k], (unsigned long long)ll->k[k].suppressed,
	            (unsigned long long)(now - ll->k[k].quiet_ms));
	ll->k[k].suppressed = 0;
	ll->pending--;
}

/* Counts whose kind's second is over, while tokens last. */
static void flush_due(ddp_ctx *ctx, uint64_t now)
{
	struct ddp_log_limit *ll = &ctx->log;
	for (int k = 0; k < DDP_LOG_KINDS && ll->pending; k++) {
		if (!ll->k[k].suppressed || now - ll->k[k].since_ms < 1000)
			continue;
		if (!take_token(ll, now))
			return;
		report(ctx, (enum ddp_log_kind)k, now);
	}
}

void ddp_llp_log_flush(ddp_ctx *ctx)
{
	if (ctx && ctx->cfg.log && ctx->log.pending)
		flush_due(ctx, now_ms());
}

void log_limit_final(ddp_ctx *ctx)
{
	uint64_t now = now_ms();
	for (int k = 0; k < DDP_LOG_KINDS && ctx->log.pending; k++)
		if (ctx->log.k[k].suppressed)
			report(ctx, (enum ddp_log_kind)k, now);
}

void ddp_llp_log_limited(ddp_ctx *ctx, enum ddp_log_kind kind, enum ddp_log_level level,
                         const char *fmt, ...)
{
	if (!ctx || !ctx->cfg.log || (unsigned)kind >= DDP_LOG_KINDS)
		return;
	struct ddp_log_limit *ll = &ctx->log;
	uint64_t now = now_ms();
	if (ll->pending)
		flush_due(ctx, now);
	if (!ll->k[kind].since_ms || now - ll->k[kind].since_ms >= 1000) {
		ll->k[kind].since_ms = now;
		ll->k[kind].lines = 0;
	}
	if (ll->k[kind].lines >= DDP_LOG_KIND_PER_S || !take_token(ll, now)) {
		if (!ll->k[kind].suppressed++) {
			ll->k[kind].quiet_ms = now;
			ll->pending++;
		}
		return;
	}
	ll->k[kind].lines++;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->cfg.log(ctx->cfg.log_user, level, msg);
}
