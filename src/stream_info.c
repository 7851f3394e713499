/* What a ULP can ask about and attach to a session and its streams:
 * application data slots, counters, queued octets and the one-shot
 * writable notification (backpressure). No protocol logic here. */
#include <string.h>

#include "core.h"
#include "abi.h"

void ddp_session_set_user_data(ddp_session *s, void *data)
{
	if (s)
		s->udata = data;
}

void *ddp_session_user_data(const ddp_session *s)
{
	return s ? s->udata : NULL;
}

int ddp_stream_set_user_data(ddp_session *s, uint32_t stream, void *data)
{
	if (!s || stream >= s->cfg.nstreams)
		return DDP_ERR_INVAL;
	s->st[stream].udata = data;
	return 0;
}

void *ddp_stream_user_data(const ddp_session *s, uint32_t stream)
{
	if (!s || stream >= s->cfg.nstreams)
		return NULL;
	return s->st[stream].udata;
}

static void add_stream(ddp_stats *out, const struct ddp_stream *st)
{
	out->msgs_tx += st->cnt.msgs_tx;
	out->octets_tx += st->cnt.octets_tx;
	out->msgs_rx += st->cnt.msgs_rx;
	out->octets_rx += st->cnt.octets_rx;
	out->errors += st->cnt.errors;
	out->queued_msgs += st->txq_len;
	out->queued_octets += st->txq_bytes;
}

int ddp_stream_get_stats_sized(const ddp_session *s, uint32_t stream, ddp_stats *out,
                               uint64_t sizes)
{
	if (!s || !out || stream >= s->cfg.nstreams)
		return DDP_ERR_INVAL;
	ddp_stats v = {0};
	add_stream(&v, &s->st[stream]);
	return DDP_ABI_OUT(out, v, sizes, 0);
}

int ddp_session_get_stats_sized(const ddp_session *s, ddp_stats *out, uint64_t sizes)
{
	if (!s || !out)
		return DDP_ERR_INVAL;
	ddp_stats v = {0};
	for (uint32_t i = 0; i < s->cfg.nstreams; i++)
		add_stream(&v, &s->st[i]);
	v.copied = s->copied;
	return DDP_ABI_OUT(out, v, sizes, 0);
}

uint64_t ddp_stream_queued(const ddp_session *s, uint32_t stream, uint32_t *msgs)
{
	if (msgs)
		*msgs = 0;
	if (!s || stream >= s->cfg.nstreams)
		return 0;
	if (msgs)
		*msgs = s->st[stream].txq_len;
	return s->st[stream].txq_bytes;
}

int ddp_stream_notify_writable(ddp_session *s, uint32_t stream, uint64_t lowat)
{
	if (!s || stream >= s->cfg.nstreams || !s->cb.writable)
		return DDP_ERR_INVAL;
	struct ddp_stream *st = &s->st[stream];
	if (st->dead || st->tx_state != TX_OPEN || s->conn_closed ||
	    (st->errored && !st->sends_after_error))
		return DDP_ERR_CLOSED;
	if (tx_can_queue(s, st) && st->txq_bytes <= lowat) {
		st->wr_armed = 0;
		return 1;
	}
	st->wr_armed = 1;
	st->wr_lowat = lowat;
	return 0;
}
