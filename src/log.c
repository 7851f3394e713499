/* The context's log hook (ddp_ctx_config.log): one formatting helper for
 * the core and the adapters (ddp_llp_log, include/ddp/llp.h). */
#include <stdarg.h>
#include <stdio.h>

#include <ddp/llp.h>
#include "core.h"

void ddp_llp_log(ddp_ctx *ctx, enum ddp_log_level level, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	if (!ctx || !ctx->cfg.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->cfg.log(ctx->cfg.log_user, level, msg);
}
