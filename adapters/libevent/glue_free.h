/*
 * The memory of the one-model glue (mpa_setup.c, sctp_setup.c) after its
 * last use: a callback frame below may still read it, so it goes on the
 * next pass of the event loop, or in ddp_ctx_free() when that comes first
 * (the context runs every release still registered), so no shutdown needs
 * another pass of the loop. ddp_ctx_free() must come before
 * event_base_free(), as for everything made on the base.
 * Header-only, as conn_resolve.h: libddp-mpa and libddp-sctp each carry a
 * copy.
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

static void glue_free_now(struct glue_free *f)
{
	void *mem = f->mem;
	event_free(f->ev);
	free(mem);
}

static void glue_free_cb(evutil_socket_t fd, short what, void *arg)
{
	struct glue_free *f = arg;
	(void)fd, (void)what;
	ddp_llp_release_done(&f->rel);
	glue_free_now(f);
}

static void glue_free_release(ddp_llp_release *r)
{
	glue_free_now((struct glue_free *)((char *)r - offsetof(struct glue_free, rel)));
}

/* Free mem (which embeds f) on the next pass of base's loop or in
 * ddp_ctx_free(ctx). Without memory for the event it is leaked rather
 * than freed under a frame that may still use it. */
static inline void glue_free_later(struct glue_free *f, struct event_base *base, ddp_ctx *ctx,
                                   void *mem)
{
	f->mem = mem;
	f->ev = event_new(base, -1, 0, glue_free_cb, f);
	if (!f->ev)
		return;
	f->rel.release = glue_free_release;
	ddp_llp_release_defer(ctx, &f->rel);
	event_active(f->ev, EV_TIMEOUT, 1);
}

#endif
