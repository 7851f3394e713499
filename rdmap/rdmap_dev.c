/* The dispatcher: one DDP callback table for every session; each event goes
 * to the queue pair of its (session, stream) or to the application's own
 * callbacks. */
#include <stdlib.h>
#include <string.h>

#include "rdmap_int.h"
#include "abi.h"

int ddp_rdmap_dev_new_sized(ddp_ctx *ctx, const ddp_callbacks *other, void *other_user,
                            ddp_rdmap_dev **out, uint64_t sizes)
{
	ddp_callbacks other_v;
	int rc;
	if (DDP_ABI_TAKE(rc, other_v, other, sizes, 0))
		return rc;
	if (!ctx || !out)
		return DDP_ERR_INVAL;
	ddp_rdmap_dev *d = calloc(1, sizeof(*d));
	if (!d)
		return DDP_ERR_NOMEM;
	d->ctx = ctx;
	if (other)
		d->other = *other;
	d->other_user = other_user;
	*out = d;
	return 0;
}

int ddp_rdmap_dev_free(ddp_rdmap_dev *dev)
{
	if (!dev)
		return 0;
	if (dev->qps)
		return DDP_ERR_BUSY;
	free(dev);
	return 0;
}

static int is_ours(const void *p)
{
	if (!p)
		return 0;
	enum rdmapi_tag t = *(const enum rdmapi_tag *)p;
	return t >= TAG_WR && t <= TAG_QN2;
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	ddp_rdmap_dev *dev = user;
	struct ddp_rdmap_qp *qp = rdmapi_qp_find(dev, s, d->stream);
	if (qp) {
		rdmapi_qp_enter(qp);
		rdmapi_qp_deliver(qp, d);
		rdmapi_qp_leave(qp);
		return;
	}
	/* a QN 1/2 buffer of a freed queue pair cannot come back: qp_free
	 * aborts the stream first; anything else is the application's */
	if (dev->other.deliver &&
	    !(d->buf_ctx && d->qn != DDP_RDMAP_QN_SEND && is_ours(d->buf_ctx)))
		dev->other.deliver(s, d, dev->other_user);
}

static void on_send_done(ddp_session *s, uint32_t stream, void *msg_ctx, int status, void *user)
{
	ddp_rdmap_dev *dev = user;
	struct ddp_rdmap_qp *qp = rdmapi_qp_find(dev, s, stream);
	if (qp) {
		rdmapi_qp_enter(qp);
		rdmapi_qp_send_done(qp, msg_ctx, status);
		rdmapi_qp_leave(qp);
	} else if (dev->other.send_done)
		dev->other.send_done(s, stream, msg_ctx, status, dev->other_user);
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	ddp_rdmap_dev *dev = user;
	struct ddp_rdmap_qp *qp = rdmapi_qp_find(dev, s, e->stream);
	if (qp) {
		rdmapi_qp_enter(qp);
		rdmapi_qp_error(qp, e);
		rdmapi_qp_leave(qp);
	} else if (dev->other.error)
		dev->other.error(s, e, dev->other_user);
}

static void on_stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev, int status,
                            void *user)
{
	ddp_rdmap_dev *dev = user;
	struct ddp_rdmap_qp *qp = rdmapi_qp_find(dev, s, stream);
	if (qp) {
		rdmapi_qp_enter(qp);
		rdmapi_qp_stream_event(qp, ev, status);
		rdmapi_qp_leave(qp);
	} else if (dev->other.stream_event)
		dev->other.stream_event(s, stream, ev, status, dev->other_user);
}

void ddp_rdmap_dev_callbacks_sized(ddp_callbacks *out, uint64_t sizes)
{
	if (!out)
		return;
	/* the whole table: a field left as the caller's stack held it would
	 * be called (writable, which RDMAP does not use) */
	ddp_callbacks v = {0};
	v.deliver = on_deliver;
	v.send_done = on_send_done;
	v.error = on_error;
	v.stream_event = on_stream_event;
	(void)DDP_ABI_OUT(out, v, sizes, 0);
}
