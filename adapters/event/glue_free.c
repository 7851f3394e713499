/* The deferred free of the one-model glue (glue_free.h). */
#include "event/glue_free.h"

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
void glue_free_later(struct glue_free *f, struct event_base *base, ddp_ctx *ctx, void *mem)
{
	f->mem = mem;
	f->ev = event_new(base, -1, 0, glue_free_cb, f);
	if (!f->ev)
		return;
	f->rel.release = glue_free_release;
	ddp_llp_release_defer(ctx, &f->rel);
	event_active(f->ev, EV_TIMEOUT, 1);
}
