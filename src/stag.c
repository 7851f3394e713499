/* Contexts, protection domains and STag registration (RFC 5041 §8,
 * RFC 5040 §8.1.1). STag = 24-bit random index (high) | 8-bit random key
 * (low); a lookup whose key differs is an invalid STag. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "alloc.h"
#include "core.h"
#include "abi.h"

#define DEFAULT_MAX_STAGS 65536u
#define MAX_STAGS         (1u << 23)
#define DEFAULT_MAX_PDS   1024u

static uint32_t os_random(void *unused)
{
	uint32_t v = 0;
	(void)unused;
	while (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v)) {
		if (errno != EINTR)
			break;
	}
	return v;
}

uint32_t ctx_random(ddp_ctx *ctx)
{
	return ctx->cfg.random(ctx->cfg.random_user);
}

int ddp_ctx_new_sized(const ddp_ctx_config *cfg, ddp_ctx **out, uint64_t sizes)
{
	ddp_ctx_config c = {0};
	int rc = DDP_ABI_IN(c, cfg, sizes, 0);
	if (rc)
		return rc;
	if (!out)
		return DDP_ERR_INVAL;
	*out = NULL;
	ddp_ctx *ctx = ddp_calloc_(1, sizeof(*ctx));
	if (!ctx)
		return DDP_ERR_NOMEM;
	ctx->cfg = c;
	if (!ctx->cfg.max_stags)
		ctx->cfg.max_stags = DEFAULT_MAX_STAGS;
	if (!ctx->cfg.max_pds)
		ctx->cfg.max_pds = DEFAULT_MAX_PDS;
	if (!ctx->cfg.random)
		ctx->cfg.random = os_random;
	if (!ctx->cfg.max_reorder_bytes)
		ctx->cfg.max_reorder_bytes = 64ull << 20;
	ctx->ooo.max = ctx->cfg.max_reorder_bytes;
	if (ctx->cfg.max_stags > MAX_STAGS) {
		free(ctx);
		return DDP_ERR_INVAL;
	}
	if (stag_map_init(&ctx->map, 64)) {
		free(ctx);
		return DDP_ERR_NOMEM;
	}
	*out = ctx;
	return 0;
}

int ddp_ctx_free(ddp_ctx *ctx)
{
	if (!ctx)
		return 0;
	/* adapter objects freed inside a callback whose release waits for
	 * the event loop: done here, the loop need not run again */
	while (ctx->releases) {
		ddp_llp_release *r = ctx->releases;
		ddp_llp_release_done(r);
		r->release(r);
	}
	if (ctx->nsessions || ctx->npds || ctx->map.used || ctx->ndying) {
		ddp_llp_log(ctx, DDP_LOG_ERROR,
		            "ddp_ctx_free: still alive: %u session(s), %u PD(s), %u STag(s)%s",
		            ctx->nsessions, ctx->npds, ctx->map.used + ctx->ndying,
		            ctx->nsessions ? " (sessions of live adapter objects)" : "");
		return DDP_ERR_BUSY;
	}
	log_limit_final(ctx);
	stag_map_free(&ctx->map);
	free(ctx);
	return 0;
}

void ddp_llp_release_defer(ddp_ctx *ctx, ddp_llp_release *r)
{
	if (!ctx || !r || r->ctx_)
		return;
	r->ctx_ = ctx;
	r->prev_ = NULL;
	r->next_ = ctx->releases;
	if (ctx->releases)
		ctx->releases->prev_ = r;
	ctx->releases = r;
}

void ddp_llp_release_done(ddp_llp_release *r)
{
	if (!r || !r->ctx_)
		return;
	if (r->prev_)
		r->prev_->next_ = r->next_;
	else
		r->ctx_->releases = r->next_;
	if (r->next_)
		r->next_->prev_ = r->prev_;
	r->next_ = r->prev_ = NULL;
	r->ctx_ = NULL;
}

int ddp_ctx_live_objects_sized(const ddp_ctx *ctx, ddp_ctx_live *out, uint64_t sizes)
{
	if (!ctx || !out)
		return DDP_ERR_INVAL;
	ddp_ctx_live v = {0};
	v.sessions = ctx->nsessions;
	v.pds = ctx->npds;
	v.stags = ctx->map.used + ctx->ndying;
	return DDP_ABI_OUT(out, v, sizes, 0);
}

int ddp_pd_new(ddp_ctx *ctx, ddp_pd **out)
{
	if (!ctx || !out)
		return DDP_ERR_INVAL;
	*out = NULL;
	if (ctx->npds >= ctx->cfg.max_pds)
		return DDP_ERR_LIMIT;
	ddp_pd *pd = ddp_calloc_(1, sizeof(*pd));
	if (!pd)
		return DDP_ERR_NOMEM;
	pd->ctx = ctx;
	ctx->npds++;
	*out = pd;
	return 0;
}

int ddp_pd_free(ddp_pd *pd)
{
	if (!pd)
		return 0;
	if (pd->refs)
		return DDP_ERR_BUSY;
	pd->ctx->npds--;
	free(pd);
	return 0;
}

/* The last REVOKED_RING invalidated STag values: a FIFO ring for the order
 * and an open-addressing set (linear probing, backward-shift deletion) for
 * O(1) membership. 0 is never an STag value (index 0 is not used). */
#define RSET_MASK (2 * REVOKED_RING - 1)

static uint32_t rset_home(uint32_t v)
{
	return (v * 0x9E3779B1u) >> 19 & RSET_MASK;
}

static int recently_revoked(const ddp_ctx *ctx, uint32_t stag)
{
	for (uint32_t i = rset_home(stag);; i = (i + 1) & RSET_MASK) {
		if (ctx->revoked_set[i] == stag)
			return 1;
		if (ctx->revoked_set[i] == 0)
			return 0;
	}
}

static void rset_del(ddp_ctx *ctx, uint32_t v)
{
	uint32_t i = rset_home(v);
	while (ctx->revoked_set[i] != v) {
		if (ctx->revoked_set[i] == 0)
			return;
		i = (i + 1) & RSET_MASK;
	}
	ctx->revoked_set[i] = 0;
	for (uint32_t j = (i + 1) & RSET_MASK; ctx->revoked_set[j]; j = (j + 1) & RSET_MASK) {
		uint32_t h = rset_home(ctx->revoked_set[j]);
		if (((j - h) & RSET_MASK) >= ((j - i) & RSET_MASK)) {
			ctx->revoked_set[i] = ctx->revoked_set[j];
			ctx->revoked_set[j] = 0;
			i = j;
		}
	}
}

static void remember_revoked(ddp_ctx *ctx, uint32_t v)
{
	uint32_t slot = ctx->revoked_pos++ % REVOKED_RING;
	if (ctx->revoked_n == REVOKED_RING)
		rset_del(ctx, ctx->revoked[slot]); /* the oldest is forgotten */
	else
		ctx->revoked_n++;
	ctx->revoked[slot] = v;
	if (recently_revoked(ctx, v))
		return;
	uint32_t i = rset_home(v);
	while (ctx->revoked_set[i])
		i = (i + 1) & RSET_MASK;
	ctx->revoked_set[i] = v;
}

struct ddp_mr *stag_lookup(ddp_ctx *ctx, uint32_t stag)
{
	struct ddp_mr *mr = stag_map_get(&ctx->map, stag >> 8);
	return (mr && mr->stag == stag) ? mr : NULL;
}

int ddp_stag_register_sized(ddp_ctx *ctx, const ddp_mr_attr *a, uint32_t *stag, uint64_t sizes)
{
	ddp_mr_attr a_v;
	int rc;
	if (DDP_ABI_TAKE(rc, a_v, a, sizes, 0))
		return rc;
	if (!ctx || !a || !stag || !a->addr || !a->len)
		return DDP_ERR_INVAL;
	if (!a->pd == !a->session)
		return DDP_ERR_INVAL;
	if (a->pd && a->pd->ctx != ctx)
		return DDP_ERR_INVAL;
	if (a->session && (a->session->ctx != ctx || a->stream >= a->session->cfg.nstreams))
		return DDP_ERR_INVAL;
	if (a->access & ~(unsigned)(DDP_ACCESS_REMOTE_WRITE | DDP_ACCESS_REMOTE_READ))
		return DDP_ERR_INVAL;
	if ((uintptr_t)a->addr > UINTPTR_MAX - a->len || a->to_base > UINT64_MAX - (a->len - 1))
		return DDP_ERR_INVAL;
	if (ctx->map.used + ctx->ndying >= ctx->cfg.max_stags)
		return DDP_ERR_LIMIT; /* a region still read counts until released */

	struct ddp_mr *mr = ddp_calloc_(1, sizeof(*mr));
	if (!mr)
		return DDP_ERR_NOMEM;
	/* RFC 5040 §8.1.1: hard to predict. Random 24-bit index (0 avoided, it
	 * is special for some peers) and a random 8-bit key; never a value
	 * handed out and revoked recently. */
	uint32_t v = 0;
	uint32_t start = ctx_random(ctx);
	for (uint32_t tries = 0;; tries++) {
		/* random indices first; a weak random source falls back to a scan
		 * (bounded: at most max_stags <= 2^23 of 2^24 indices are used) */
		uint32_t index = (tries < 64 ? (ctx_random(ctx) >> 8) : start + tries) & 0xFFFFFF;
		if (index == 0 || stag_map_get(&ctx->map, index))
			continue;
		uint32_t key = ctx_random(ctx) & 0xFF, k;
		for (k = 0; k < 256; k++) {
			v = (index << 8) | ((key + k) & 0xFF);
			if (!recently_revoked(ctx, v))
				break;
		}
		if (k < 256)
			break;
	}
	mr->stag = v;
	mr->addr = a->addr;
	mr->len = a->len;
	mr->to_base = a->to_base;
	mr->access = a->access;
	mr->pd = a->pd;
	mr->session = a->session;
	mr->stream = a->stream;
	mr->released = a->released;
	mr->released_user = a->released_user;
	if (stag_map_put(&ctx->map, mr)) {
		free(mr);
		return DDP_ERR_NOMEM;
	}
	if (mr->pd)
		mr->pd->refs++;
	if (mr->session) {
		ddp_session *s = mr->session;
		mr->s_next = s->mrs;
		if (s->mrs)
			s->mrs->s_prev = mr;
		s->mrs = mr;
	}
	*stag = v;
	return 0;
}

/* The end of a region: the application's again, its hook told. */
static void mr_release(ddp_ctx *ctx, struct ddp_mr *mr)
{
	ddp_stag_released_cb cb = mr->released;
	void *user = mr->released_user, *addr = mr->addr;
	uint32_t stag = mr->stag;
	free(mr);
	if (cb)
		cb(ctx, stag, addr, user);
}

/* Invalidate: DDP_STAG_IN_USE while outgoing Read Responses still read
 * the buffer (it is released by the last ddp_stag_unhold), else 0. */
static int mr_destroy(ddp_ctx *ctx, struct ddp_mr *mr)
{
	/* RFC 5041 §8 (DDP-SEC-5): after this no segment may touch the buffer,
	 * not even one whose payload is being read right now. */
	rx_revoke(ctx, mr->stag);
	stag_map_del(&ctx->map, mr->stag >> 8);
	remember_revoked(ctx, mr->stag);
	if (mr->pd)
		mr->pd->refs--;
	if (mr->session) {
		if (mr->s_prev)
			mr->s_prev->s_next = mr->s_next;
		else
			mr->session->mrs = mr->s_next;
		if (mr->s_next)
			mr->s_next->s_prev = mr->s_prev;
	}
	/* Off the map and unbound: nothing finds it by its STag any more,
	 * only the holders that resolved it earlier still read it. */
	mr->pd = NULL;
	mr->session = NULL;
	mr->s_next = mr->s_prev = NULL;
	if (mr->holds) {
		mr->dying = 1;
		ctx->ndying++;
		return DDP_STAG_IN_USE;
	}
	mr_release(ctx, mr);
	return 0;
}

int ddp_stag_invalidate(ddp_ctx *ctx, uint32_t stag)
{
	if (!ctx)
		return DDP_ERR_INVAL;
	struct ddp_mr *mr = stag_lookup(ctx, stag);
	if (!mr)
		return DDP_ERR_NOENT;
	return mr_destroy(ctx, mr);
}

/* The STag is bound to this stream: to the stream itself, or to the PD of
 * the stream (RFC 5041 §8, DDP-SEC-4). */
static int mr_bound_to(const struct ddp_mr *mr, const ddp_session *s, uint32_t stream)
{
	return mr->session ? mr->session == s && mr->stream == stream : mr->pd == s->st[stream].pd;
}

/* The region of stag as the peer on (s, stream) may name it: 0, or
 * DDP_ERR_INVAL / DDP_ERR_NOENT (no such STag) / DDP_ERR_ACCESS (bound
 * elsewhere). */
static int peer_region(ddp_ctx *ctx, ddp_session *s, uint32_t stream, uint32_t stag,
                       struct ddp_mr **out)
{
	if (!ctx || !s || stream >= s->cfg.nstreams)
		return DDP_ERR_INVAL;
	struct ddp_mr *mr = stag_lookup(ctx, stag);
	if (!mr)
		return DDP_ERR_NOENT;
	if (!mr_bound_to(mr, s, stream))
		return DDP_ERR_ACCESS;
	*out = mr;
	return 0;
}

int ddp_stag_invalidate_remote(ddp_ctx *ctx, ddp_session *s, uint32_t stream, uint32_t stag)
{
	struct ddp_mr *mr;
	/* Only an STag this stream could name may be invalidated by its peer
	 * (same binding rule as placement, RFC 5041 §8 DDP-SEC-4). */
	int rc = peer_region(ctx, s, stream, stag, &mr);
	if (rc)
		return rc;
	return mr_destroy(ctx, mr);
}

void stag_release_session(ddp_session *s)
{
	while (s->mrs)
		mr_destroy(s->ctx, s->mrs);
}

int ddp_stag_set_access(ddp_ctx *ctx, uint32_t stag, unsigned access)
{
	if (!ctx || (access & ~(unsigned)(DDP_ACCESS_REMOTE_WRITE | DDP_ACCESS_REMOTE_READ)))
		return DDP_ERR_INVAL;
	struct ddp_mr *mr = stag_lookup(ctx, stag);
	if (!mr)
		return DDP_ERR_NOENT;
	if (!(access & DDP_ACCESS_REMOTE_WRITE))
		rx_revoke(ctx, stag); /* a placement in flight loses its right */
	mr->access = access;
	return 0;
}

/* The readable range [to, to + len) of stag for the peer of (s, stream). */
static int read_range(ddp_ctx *ctx, ddp_session *s, uint32_t stream, uint32_t stag, uint64_t to,
                      uint64_t len, struct ddp_mr **mrp, void **ptr)
{
	struct ddp_mr *mr;
	if (!ptr)
		return DDP_ERR_INVAL;
	int rc = peer_region(ctx, s, stream, stag, &mr);
	if (rc)
		return rc;
	if (!(mr->access & DDP_ACCESS_REMOTE_READ))
		return DDP_ERR_ACCESS;
	if (len && to > UINT64_MAX - (len - 1))
		return DDP_ERR_INVAL;
	if (to < mr->to_base)
		return DDP_ERR_INVAL;
	uint64_t off = to - mr->to_base;
	if (len > mr->len || off > mr->len - len)
		return DDP_ERR_INVAL;
	*mrp = mr;
	*ptr = mr->addr + off;
	return 0;
}

int ddp_stag_resolve_read(ddp_ctx *ctx, ddp_session *s, uint32_t stream, uint32_t stag, uint64_t to,
                          uint64_t len, void **ptr)
{
	struct ddp_mr *mr;
	return read_range(ctx, s, stream, stag, to, len, &mr, ptr);
}

int ddp_stag_hold_read(ddp_ctx *ctx, ddp_session *s, uint32_t stream, uint32_t stag, uint64_t to,
                       uint64_t len, void **ptr, ddp_stag_hold **hold)
{
	struct ddp_mr *mr;
	if (!hold)
		return DDP_ERR_INVAL;
	int rc = read_range(ctx, s, stream, stag, to, len, &mr, ptr);
	if (rc)
		return rc;
	if (mr->holds == UINT32_MAX)
		return DDP_ERR_LIMIT;
	mr->holds++;
	*hold = (ddp_stag_hold *)mr;
	return 0;
}

void ddp_stag_unhold(ddp_ctx *ctx, ddp_stag_hold *hold)
{
	struct ddp_mr *mr = (struct ddp_mr *)hold;
	if (!ctx || !mr || !mr->holds)
		return;
	if (--mr->holds || !mr->dying)
		return;
	ctx->ndying--;
	mr_release(ctx, mr);
}
