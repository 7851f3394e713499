/* Test hooks (include/ddp/debug.h). */
#include <ddp/debug.h>

#include "core.h"

int ddp_debug_set_msn(ddp_session *s, uint32_t stream, uint32_t qn, uint32_t tx_next,
		      uint32_t rx_head)
{
	if (!s || stream >= s->cfg.nstreams || qn >= s->cfg.nqueues)
		return DDP_ERR_INVAL;
	s->st[stream].uq[qn].tx_msn = tx_next;
	s->st[stream].uq[qn].head_msn = rx_head;
	return 0;
}
