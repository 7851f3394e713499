/*
 * nullllp: the smallest LLP for fuzz targets and unit tests that only
 * receive: ops->send counts and discards segments (return 0), close calls
 * are counted. Unlike memllp it needs no peer, and it is linked into the
 * libFuzzer builds.
 */
#ifndef DDP_TEST_NULLLLP_H
#define DDP_TEST_NULLLLP_H

#include <stddef.h>
#include <stdint.h>

#include <ddp/llp.h>

typedef struct nullllp {
	uint32_t mulpdu;	/* answer of ops->mulpdu (0: 1500) */
	size_t nsent, bytes;	/* segments / octets handed to ops->send */
	size_t ncloses;		/* close_stream + close calls */
	unsigned violations;	/* send() contract breaches seen */
	int send_rc;		/* what ops->send returns (0: take it) */
} nullllp;

/* llp must point to a nullllp. */
extern const ddp_llp_ops nullllp_ops;

#endif
