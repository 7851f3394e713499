/*
 * libevent glue for MPA/TCP (public API in ddp/mpa.h). Internal accessors
 * for tests.
 */
#ifndef DDP_EV_MPA_TCP_H
#define DDP_EV_MPA_TCP_H

#include <ddp/mpa.h>

#include "mpa/mpa_proto.h"

/* The pure connection under a ddp_mpa_conn (statistics, tests). */
mpa_proto *ev_mpa_core(const ddp_mpa_conn *c);

#endif
