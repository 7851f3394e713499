/* Read-only accessors of an MPA connection (mpa_proto.h). */
#include "mpa/mpa_proto_int.h"

int mpa_proto_starting(const mpa_proto *c)
{
	return c && (c->phase == PH_IDLE || c->phase == PH_WAIT_REQ || c->phase == PH_DECIDE ||
	             c->phase == PH_WAIT_REP);
}

const mpa_frame *mpa_proto_peer_frame(const mpa_proto *c)
{
	return c && c->sp.state == MPA_SP_DONE ? &c->sp.frame : NULL;
}

const mpa_result *mpa_proto_result(const mpa_proto *c)
{
	return c && c->have_res ? &c->res : NULL;
}

uint32_t mpa_proto_mulpdu(const mpa_proto *c)
{
	return c ? c->mulpdu : 0;
}

int mpa_proto_is_initiator(const mpa_proto *c)
{
	return c ? c->cfg.initiator : 0;
}

size_t mpa_proto_queued(const mpa_proto *c)
{
	return c ? c->queued : 0;
}

const mpa_deframer *mpa_proto_deframer(const mpa_proto *c)
{
	return c ? &c->rx : NULL;
}

uint64_t mpa_proto_writev_calls(const mpa_proto *c)
{
	return c ? c->writevs : 0;
}

uint64_t mpa_proto_again_count(const mpa_proto *c)
{
	return c ? c->agains : 0;
}
