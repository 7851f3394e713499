/* Every allocation of the core goes through here so tests can fail the Nth
 * one (ddp_debug.h: ddp_debug_fail_alloc). */
#ifndef DDP_ALLOC_H
#define DDP_ALLOC_H

#include <stddef.h>

void *ddp_malloc_(size_t n);
void *ddp_calloc_(size_t nmemb, size_t size);
void *ddp_realloc_(void *p, size_t n);

#endif
