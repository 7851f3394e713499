/* Test hooks of the DDP core (src/debug.c). Internal: not installed, and
 * not exported by the installed libraries (mk/install.mk); the test suite
 * reaches them through the build tree's static libraries. Not for
 * production use: they break the protocol's invariants on purpose so tests
 * can reach corner cases (an MSN about to wrap, RFC 5041 §4.3) without
 * sending 2^32 messages. */
#ifndef DDP_DEBUG_H
#define DDP_DEBUG_H

#include <ddp/ddp.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Set the next MSN sent on (stream, qn) and the MSN the oldest posted buffer
 * of that queue answers to. Errors: DDP_ERR_INVAL. */
int ddp_debug_set_msn(ddp_session *s, uint32_t stream, uint32_t qn, uint32_t tx_next,
                      uint32_t rx_head);

/* failmalloc: let n more core allocations succeed, then fail every one
 * (n < 0: never fail, the default). Lets tests prove that every allocation
 * failure is reported as DDP_ERR_NOMEM (or handled) without leaks. */
void ddp_debug_fail_alloc(long n);

#ifdef __cplusplus
}
#endif
#endif
