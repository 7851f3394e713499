/*
 * The memory of the one-model setup (conn_setup.c) after its
 * last use: a callback frame below may still read it, so it goes on the
 * next pass of the event loop, or in ddp_ctx_free() when that comes first
 * (the context runs every release still registered), so no shutdown needs
 * another pass of the loop. ddp_ctx_free() must come before
 * event_base_free(), as for everything made on the base.
 */
#ifndef DDP_EV_GLUE_FREE_H
#define DDP_EV_GLUE_FREE_H

#include <stddef.h>
#include <stdlib.h>

#include <event2/event.h>

#include <ddp/llp.h>

struct glue_free {
	ddp_llp_release rel;
	struct event *ev;
	void *mem; /* the block that embeds this */
};

/* Free mem (which embeds f) on the next pass of base's loop or in
 * ddp_ctx_free(ctx). Without memory for the event it is leaked rather
 * than freed under a frame that may still use it. */
void glue_free_later(struct glue_free *f, struct event_base *base, ddp_ctx *ctx, void *mem);

#endif
